//! Site templates end to end: a local site whose pages share a template, polled by the real
//! pipeline on both databases. A boilerplate paragraph that a single-page extraction keeps
//! is gone from the pages stored once the site has been seen, `reextract` removes it from
//! the first page too, and `gleaner sites` reports the model.

use crate::common;

use std::path::Path;
use std::process::Command;

use anyhow::Context as _;
use common::farm::{self, Farm, Item};
use common::{TestConfig, TestDb};
use gleaner::daemon;
use gleaner::pipeline::Context;
use gleaner::store::ArticleFilter;
use tokio_util::sync::CancellationToken;

on_both_databases!(boilerplate_a_single_page_keeps_is_gone_once_the_site_has_been_seen);

const BINARY: &str = env!("CARGO_BIN_EXE_gleaner");

/// The site's own paragraph under every article: sentence-like, long, inside the article's
/// container, so nothing on one page tells it from the story.
const HOUSE_NOTE: &str = "The Daily Bugle is an independent newspaper owned by its readers \
                          since 1887, and every story we publish is checked by two editors \
                          before it goes out to the city.";

/// Story `n`'s paragraphs: told apart by words, not only by numbers (numbers are folded).
fn paragraphs(n: usize) -> Vec<String> {
    let subject = ["", "harbour", "library", "orchard", "railway"][n % 5];
    (0..5)
        .map(|p| {
            format!(
                "Paragraph {p} of the {subject} story: the council met on Tuesday to discuss \
                 the {subject} and the budget for the coming year, and members spoke at length \
                 about roads, schools and what residents have asked for since the spring."
            )
        })
        .collect()
}

fn templated_page(n: usize) -> String {
    let body: String = paragraphs(n)
        .iter()
        .map(|p| format!("<p>{p}</p>\n"))
        .collect();
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">\
         <title>Story {n} | The Daily Bugle</title></head><body>\
         <div class=\"top\"><a href=\"/\">Home</a> <a href=\"/city\">City</a></div>\
         <div class=\"content\"><h1>Story {n}</h1>{body}\
         <p class=\"note\">{HOUSE_NOTE}</p></div></body></html>"
    )
}

fn item(farm: &Farm, n: usize) -> Item {
    Item {
        guid: format!("urn:bugle:{n}"),
        url: farm.url(&format!("/a/{n}.html")),
        title: format!("Story {n}"),
    }
}

fn serve_feed(farm: &Farm, stories: std::ops::RangeInclusive<usize>) {
    let items: Vec<Item> = stories.map(|n| item(farm, n)).collect();
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", farm::rss(&items).into()),
    );
}

async fn poll(ctx: &Context) -> anyhow::Result<()> {
    daemon::poll_once(ctx, true, &CancellationToken::new(), |_| {}, |_| {}).await?;
    Ok(())
}

/// The stored text of every article, by URL.
async fn texts(ctx: &Context) -> anyhow::Result<Vec<(String, String)>> {
    let listed = ctx
        .store
        .list_articles(&ArticleFilter {
            limit: 100,
            ascending: true,
            ..Default::default()
        })
        .await?;
    let mut texts = Vec::new();
    for row in listed {
        let article = ctx.store.article(row.id).await?.context("stored")?;
        texts.push((article.url, article.text));
    }
    Ok(texts)
}

fn gleaner(dir: &Path, db: &TestDb, args: &[&str]) -> anyhow::Result<String> {
    let output = Command::new(BINARY)
        .current_dir(dir)
        .env("GLEANER_DATABASE_URL", db.url())
        .env_remove("GLEANER_CONFIG")
        .env_remove("RUST_LOG")
        .args(args)
        .output()?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    anyhow::ensure!(
        output.status.success(),
        "gleaner {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(stdout)
}

async fn boilerplate_a_single_page_keeps_is_gone_once_the_site_has_been_seen(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=4 {
        farm.html(&format!("/a/{n}.html"), &templated_page(n));
    }
    let config = TestConfig::new(&db)
        .loopback_farm()
        .feed("bugle", farm.url("/rss.xml"));
    let ctx = daemon::prepare(config.parse()?).await?;

    // A new site: the first page is extracted alone, and keeps the house note; so is the
    // second (one earlier page is no evidence of a template).
    for seen in 1..=2 {
        serve_feed(&farm, 1..=seen);
        poll(&ctx).await?;
        let stored = texts(&ctx).await?;
        assert_eq!(stored.len(), seen);
        let (_, text) = &stored[seen - 1];
        assert!(text.contains(&paragraphs(seen)[4]), "{text}");
        assert!(
            text.contains(HOUSE_NOTE),
            "page {seen} of a new site: {text}"
        );
    }

    // The site has been seen: the next pages lose the note, never their story.
    serve_feed(&farm, 1..=4);
    poll(&ctx).await?;
    let all = texts(&ctx).await?;
    assert_eq!(all.len(), 4);
    for (url, text) in all
        .iter()
        .filter(|(url, _)| !url.ends_with("/a/1.html") && !url.ends_with("/a/2.html"))
    {
        let n: usize = url
            .trim_end_matches(".html")
            .rsplit('/')
            .next()
            .context("story number")?
            .parse()?;
        for paragraph in paragraphs(n) {
            assert!(text.contains(&paragraph), "{url}: {text}");
        }
        assert!(
            !text.contains(HOUSE_NOTE),
            "{url} after the site was seen: {text}"
        );
    }

    let sites = ctx.store.site_summaries().await?;
    assert_eq!(sites.len(), 1, "{sites:?}");
    assert_eq!(sites[0].pages, 4);
    assert_eq!(sites[0].applied_pages, 2);
    assert!(sites[0].removed_blocks >= 2, "{sites:?}");
    assert!(sites[0].template_blocks >= 1, "{sites:?}");

    // The model lives in the database: `reextract` cleans the first page too, and `sites`
    // reports it.
    let dir = tempfile::tempdir()?;
    config.write(dir.path())?;
    gleaner(dir.path(), &db, &["reextract"])?;
    let again = texts(&ctx).await?;
    let first_again = again
        .iter()
        .find(|(url, _)| url.ends_with("/a/1.html"))
        .context("the first story")?;
    assert!(first_again.1.contains(&paragraphs(1)[4]));
    assert!(!first_again.1.contains(HOUSE_NOTE), "{first_again:?}");

    let listed: serde_json::Value =
        serde_json::from_str(&gleaner(dir.path(), &db, &["sites", "--json"])?)?;
    let site = &listed[0];
    assert_eq!(site["site"], format!("127.0.0.1:{}", farm.addr.port()));
    assert_eq!(site["pages"], 4);
    let table = gleaner(dir.path(), &db, &["sites"])?;
    assert!(table.contains("127.0.0.1"), "{table}");
    Ok(())
}
