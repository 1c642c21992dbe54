//! Tags end to end: a farm's RSS, Atom and JSON feeds carry categories, the configuration gives
//! one feed `tags`; after a poll, `export`, `articles list`, `articles show`,
//! `GET /articles/{id}` and `GET /articles?tag=` show and filter them, on both databases.

use crate::api_support;
use crate::common;

use std::path::Path;
use std::process::Command;

use anyhow::Context as _;
use common::farm::{self, Farm};
use common::{TestConfig, TestDb, poll};
use gleaner::daemon;
use serde_json::Value;

on_both_databases!(
    feed_categories_and_configured_tags_are_stored_shown_and_filtered,
    tags_of_a_pending_entry_reach_its_article,
    every_feed_that_lists_an_article_gives_it_its_tags,
    a_selection_of_feeds_is_their_newest_articles_each_once,
);

/// Serves story `n`'s page and returns its URL.
fn story(farm: &Farm, n: usize) -> String {
    let path = format!("/a/{n}.html");
    farm.html(
        &path,
        &farm::article_page(&format!("Story {n}"), &farm::paragraphs(n), None),
    );
    farm.url(&path)
}

/// An RSS feed of stories 1 and 2: 1 with categories, 2 with none.
fn rss(farm: &Farm) -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>R</title>\
         <link>http://farm.example/</link>\
         <item><title>Story 1</title><link>{}</link><guid>r1</guid>\
         <category>Energy</category><category> Grid  policy </category>\
         <category>energy</category></item>\
         <item><title>Story 2</title><link>{}</link><guid>r2</guid></item>\
         </channel></rss>",
        story(farm, 1),
        story(farm, 2)
    )
}

/// An Atom feed of story 3: one category by term, one by label only.
fn atom(farm: &Farm) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">\
         <title>A</title><id>urn:a</id><updated>2026-11-02T10:00:00Z</updated>\
         <entry><title>Story 3</title><id>a3</id><link rel=\"alternate\" href=\"{}\"/>\
         <updated>2026-11-02T10:00:00Z</updated>\
         <category term=\"solar\" label=\"Solar power\"/><category term=\"\" label=\"Storage\"/>\
         </entry></feed>",
        story(farm, 3)
    )
}

/// A JSON Feed of story 4 with tags.
fn json_feed(farm: &Farm) -> String {
    serde_json::json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": "J",
        "items": [{"id": "j4", "url": story(farm, 4), "title": "Story 4",
                   "tags": ["Wind", "offshore"]}],
    })
    .to_string()
}

fn gleaner(dir: &Path) -> Command {
    let mut command = common::gleaner_in(dir);
    command.arg("--config").arg(dir.join("config.toml"));
    command
}

/// Runs the binary; its standard output, after checking that it succeeded.
fn run(command: &mut Command) -> anyhow::Result<String> {
    let output = command.output()?;
    anyhow::ensure!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(String::from_utf8(output.stdout)?)
}

/// Each exported article's title with its tags, in id order.
fn exported(jsonl: &str) -> anyhow::Result<Vec<(String, Vec<String>)>> {
    jsonl
        .lines()
        .map(|line| {
            let article: Value = serde_json::from_str(line)?;
            let title = article["title"].as_str().context("a title")?.to_string();
            let tags = serde_json::from_value(article["tags"].clone())?;
            Ok((title, tags))
        })
        .collect()
}

fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|value| value.to_string()).collect()
}

async fn feed_categories_and_configured_tags_are_stored_shown_and_filtered(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", rss(&farm).into()),
    );
    farm.route(
        "/atom.xml",
        farm::ok("application/atom+xml", atom(&farm).into()),
    );
    farm.route(
        "/feed.json",
        farm::ok("application/feed+json", json_feed(&farm).into()),
    );
    let config = TestConfig::new(&db)
        .loopback_farm()
        .feed("rss", farm.url("/rss.xml"))
        .feed_set(
            "tags",
            toml::Value::try_from(["EU", "  grid POLICY", "eu"])?,
        )
        .feed("atom", farm.url("/atom.xml"))
        .feed("json", farm.url("/feed.json"));
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 4, "{reports:#?}");

    let dir = tempfile::tempdir()?;
    config.write(dir.path())?;
    let mut all = exported(&run(gleaner(dir.path()).arg("export"))?)?;
    all.sort();
    assert_eq!(
        all,
        [
            ("Story 1".into(), strings(&["Energy", "EU", "Grid policy"])),
            ("Story 2".into(), strings(&["EU", "grid POLICY"])),
            ("Story 3".into(), strings(&["solar", "Storage"])),
            ("Story 4".into(), strings(&["offshore", "Wind"])),
        ]
    );
    let tagged = exported(&run(gleaner(dir.path()).args(["export", "--tag", "eu"]))?)?;
    let mut titles: Vec<&str> = tagged.iter().map(|(title, _)| title.as_str()).collect();
    titles.sort();
    assert_eq!(titles, ["Story 1", "Story 2"]);
    assert!(run(gleaner(dir.path()).args(["export", "--tag", "nuclear"]))?.is_empty());
    let atom_only = exported(&run(gleaner(dir.path()).args([
        "export",
        "--feed",
        "atom",
        "--since",
        "2000-01-01",
    ]))?)?;
    assert_eq!(atom_only.len(), 1);
    assert_eq!(atom_only[0].0, "Story 3");
    assert!(
        run(gleaner(dir.path()).args(["export", "--since", "2999-01-01"]))?.is_empty(),
        "nothing was fetched in the future"
    );
    let listed: Value = serde_json::from_str(&run(
        gleaner(dir.path()).args(["articles", "list", "--tag", "WIND", "--json"])
    )?)?;
    let listed = listed.as_array().context("a list")?;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["tags"], serde_json::json!(["offshore", "Wind"]));

    let markdown = dir.path().join("md");
    run(gleaner(dir.path())
        .args(["export", "--format", "markdown", "--tag", "solar", "--dir"])
        .arg(&markdown))?;
    let files: Vec<_> = std::fs::read_dir(&markdown)?.collect::<Result<_, _>>()?;
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(files[0].path())?;
    assert!(
        text.contains("\ntags:\n  - \"solar\"\n  - \"Storage\"\n"),
        "{text}"
    );

    let app = api_support::App::spawn(&db.store, None).await?;
    let (status, page) = app.get_json("/articles?tag=energy").await?;
    assert_eq!(status, 200, "{page}");
    let rows = page["articles"].as_array().context("rows")?;
    assert_eq!(rows.len(), 1, "{page}");
    assert_eq!(rows[0]["title"], "Story 1");
    assert_eq!(
        rows[0]["tags"],
        serde_json::json!(["Energy", "EU", "Grid policy"])
    );
    let id = rows[0]["id"].as_i64().context("an id")?;
    let (status, article) = app.get_json(&format!("/articles/{id}")).await?;
    assert_eq!(status, 200, "{article}");
    assert_eq!(
        article["tags"],
        serde_json::json!(["Energy", "EU", "Grid policy"])
    );
    let shown = run(gleaner(dir.path()).args(["articles", "show", &id.to_string()]))?;
    assert!(
        shown.contains("\ntags: Energy, EU, Grid policy\n"),
        "{shown}"
    );
    let (status, none) = app.get_json("/articles?tag=nuclear").await?;
    assert_eq!(status, 200, "{none}");
    assert_eq!(none["articles"], serde_json::json!([]));
    Ok(())
}

/// An entry whose page fails at first keeps its categories in `feed_entries` until its article
/// is stored at a later poll.
async fn tags_of_a_pending_entry_reach_its_article(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", rss(&farm).into()),
    );
    farm.wrap("/a/1.html", |page| farm::Route::FailsFirst {
        status: 500,
        failures: 1,
        then: Box::new(page),
    });
    let config = TestConfig::new(&db)
        .loopback_farm()
        .set("fetch", "article_retry_seconds", 0)
        .feed("rss", farm.url("/rss.xml"));
    let ctx = daemon::prepare(config.parse()?).await?;
    let (first, reports) = poll(&ctx).await?;
    assert_eq!(first.new_articles, 1, "{reports:#?}");
    // The feed stops listing the entry's categories: the stored ones are the entry's.
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", farm::rss(&[]).into()),
    );
    let (second, reports) = poll(&ctx).await?;
    assert_eq!(second.new_articles, 1, "{reports:#?}");
    let rows = common::distinct_articles(&db.store).await?;
    let first_story = rows
        .iter()
        .find(|row| row.title == "Story 1")
        .context("story 1 stored")?;
    let article = db.store.article(first_story.id).await?.context("stored")?;
    assert_eq!(article.tags, ["Energy", "Grid policy"]);
    Ok(())
}

/// Two feeds list one story, each with categories and configured tags of its own: the story is
/// stored once, with the tags of both.
async fn every_feed_that_lists_an_article_gives_it_its_tags(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let url = story(&farm, 5);
    let feed = |category: &str| {
        format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>R</title>\
             <link>http://farm.example/</link><item><title>Story 5</title><link>{url}</link>\
             <category>{category}</category></item></channel></rss>"
        )
    };
    farm.route(
        "/one.xml",
        farm::ok("application/rss+xml", feed("Hydro").into()),
    );
    farm.route(
        "/two.xml",
        farm::ok("application/rss+xml", feed("hydro").into()),
    );
    let config = TestConfig::new(&db)
        .loopback_farm()
        .feed("one", farm.url("/one.xml"))
        .feed_set("tags", toml::Value::try_from(["Norway"])?)
        .feed("two", farm.url("/two.xml"))
        .feed_set("tags", toml::Value::try_from(["dams", "NORWAY"])?);
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 1, "{reports:#?}");
    // The feed that met the story while the other was storing it lists it at its next poll.
    poll(&ctx).await?;
    let rows = common::distinct_articles(&db.store).await?;
    assert_eq!(rows.len(), 1);
    let article = db.store.article(rows[0].id).await?.context("stored")?;
    assert_eq!(article.tags.len(), 3, "{:?}", article.tags);
    let folded: Vec<String> = article.tags.iter().map(|tag| tag.to_lowercase()).collect();
    assert_eq!(folded, ["dams", "hydro", "norway"]);
    // A second poll lists nothing new and adds nothing.
    poll(&ctx).await?;
    let again = db.store.article(rows[0].id).await?.context("stored")?;
    assert_eq!(again.tags, article.tags);
    Ok(())
}

/// What an output of some feeds serves: the newest articles any of them lists, newest first,
/// an article two of them list once, at most the limit; a feed outside the selection adds
/// nothing.
async fn a_selection_of_feeds_is_their_newest_articles_each_once(db: TestDb) -> anyhow::Result<()> {
    use gleaner::store::claims::ArticleSelection;
    let farm = Farm::start().await?;
    let feed = |stories: &[usize]| {
        let items: String = stories
            .iter()
            .map(|&n| {
                format!(
                    "<item><title>Story {n}</title><link>{}</link><guid>s{n}</guid></item>",
                    story(&farm, n)
                )
            })
            .collect();
        format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>R</title>\
             <link>http://farm.example/</link>{items}</channel></rss>"
        )
    };
    for (path, stories) in [
        ("/one.xml", &[1, 2, 5][..]),
        ("/two.xml", &[3, 5]),
        ("/three.xml", &[4]),
    ] {
        farm.route(path, farm::ok("application/rss+xml", feed(stories).into()));
    }
    let config = TestConfig::new(&db)
        .loopback_farm()
        .feed("one", farm.url("/one.xml"))
        .feed("two", farm.url("/two.xml"))
        .feed("three", farm.url("/three.xml"));
    let ctx = daemon::prepare(config.parse()?).await?;
    poll(&ctx).await?;
    // The feed that met a shared story while the other was storing it lists it now.
    poll(&ctx).await?;
    let mut by_title = std::collections::HashMap::new();
    for row in common::distinct_articles(&db.store).await? {
        let article = db.store.article(row.id).await?.context("stored")?;
        by_title.insert(article.title.clone(), row.id);
    }
    let id = |n: usize| by_title.get(&format!("Story {n}")).copied().unwrap_or(-1);
    let selection = |feeds: &[&str]| ArticleSelection {
        feeds: Some(feeds.iter().map(|f| f.to_string()).collect()),
        ..ArticleSelection::default()
    };
    let mut expected: Vec<i64> = [1, 2, 3, 5].into_iter().map(id).collect();
    expected.sort_unstable_by(|a, b| b.cmp(a));
    let selected = db
        .store
        .selected_articles(&selection(&["one", "two"]), 10)
        .await?;
    assert_eq!(selected, expected);
    let newest_two = db
        .store
        .selected_articles(&selection(&["two", "one"]), 2)
        .await?;
    assert_eq!(newest_two, expected[..2]);
    let three = db
        .store
        .selected_articles(&selection(&["three"]), 10)
        .await?;
    assert_eq!(three, [id(4)]);
    let none = db
        .store
        .selected_articles(&selection(&["nobody"]), 10)
        .await?;
    assert!(none.is_empty(), "{none:?}");
    Ok(())
}
