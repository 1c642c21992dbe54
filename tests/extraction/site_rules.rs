//! `[[sites]]` extraction rules through a real poll: a loopback farm, both databases; and the
//! `page_type` a feed or a site is configured with, which its articles are stored as.

use crate::common;

use std::path::Path;

use common::farm::{self, Farm, Item};
use common::{TestConfig, TestDb};
use gleaner::config::Config;
use gleaner::daemon;
use gleaner::store::Article;
use tokio_util::sync::CancellationToken;

on_both_databases!(
    a_content_rule_decides_the_article_and_is_stored_as_rules,
    a_content_rule_that_matches_nothing_falls_back_to_the_generic_algorithm,
    remove_only_rules_clean_the_page_before_the_generic_algorithm,
    a_feeds_page_type_is_what_its_articles_are_stored_as,
    a_sites_page_type_wins_over_its_feeds,
);

const PROMO: &str = "Subscribe today and save forty percent on every issue of the magazine";

/// A page whose story sits in `.story`, with a promotion inside it and a teaser beside it.
fn story_page(n: usize) -> String {
    let paragraphs: String = farm::paragraphs(n)
        .iter()
        .map(|p| format!("<p>{p}</p>"))
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Story {n}</title></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/world\">World</a></nav>\
         <div class=\"story\"><h1>Story {n}</h1>\
         <p class=\"extra\">{PROMO}, and the offer ends soon for readers like you who \
         have followed the council's budget debate through the whole long year.</p>{paragraphs}</div>\
         <div class=\"teaser\"><p>Read next: a story about something else entirely.</p></div>\
         </body></html>"
    )
}

/// A farm serving one feed of one story page; returns the farm and the feed's URL.
async fn farm_with_story() -> anyhow::Result<(Farm, String)> {
    let farm = Farm::start().await?;
    farm.html("/a/1.html", &story_page(1));
    let items = [Item {
        guid: "g1".into(),
        url: farm.url("/a/1.html"),
        title: "Story 1".into(),
    }];
    farm.route(
        "/feed.xml",
        farm::ok("application/rss+xml", farm::rss(&items).into_bytes()),
    );
    let feed = farm.url("/feed.xml");
    Ok((farm, feed))
}

fn site(config: TestConfig, content: &[&str], remove: &[&str]) -> TestConfig {
    let list =
        |items: &[&str]| toml::Value::Array(items.iter().map(|s| toml::Value::from(*s)).collect());
    config.table_array(
        "sites",
        &[
            ("host", toml::Value::from("127.0.0.1")),
            ("content", list(content)),
            ("remove", list(remove)),
        ],
    )
}

/// Polls once and reads the one stored article.
async fn poll_one(config: Config) -> anyhow::Result<Article> {
    let ctx = daemon::prepare(config).await?;
    let summary = daemon::poll_once(&ctx, true, &CancellationToken::new(), |_| {}, |_| {}).await?;
    anyhow::ensure!(summary.new_articles == 1, "one article stored: {summary:?}");
    let rows = common::distinct_articles(&ctx.store).await?;
    let id = rows.first().map(|row| row.id).unwrap_or_default();
    ctx.store
        .article(id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("article {id} stored"))
}

async fn a_content_rule_decides_the_article_and_is_stored_as_rules(
    db: TestDb,
) -> anyhow::Result<()> {
    let (_farm, feed) = farm_with_story().await?;
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let article = poll_one(site(config, &[".story"], &[".extra"]).parse()?).await?;
    assert_eq!(article.extractor, "rules");
    assert!(article.text.contains("Paragraph 4 of story 1"));
    assert!(!article.text.contains(PROMO), "removed before the content");
    assert!(!article.text.contains("Read next"), "outside the content");
    Ok(())
}

async fn a_content_rule_that_matches_nothing_falls_back_to_the_generic_algorithm(
    db: TestDb,
) -> anyhow::Result<()> {
    let (_farm, feed) = farm_with_story().await?;
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let article = poll_one(site(config, &[".no-such-class"], &[]).parse()?).await?;
    assert_ne!(article.extractor, "rules");
    assert!(article.text.contains("Paragraph 0 of story 1"));
    Ok(())
}

async fn remove_only_rules_clean_the_page_before_the_generic_algorithm(
    db: TestDb,
) -> anyhow::Result<()> {
    let generic = gleaner::extract::extract_page(
        story_page(1).as_bytes(),
        None,
        None,
        Some("Story 1"),
        gleaner::extract::Algorithm::Auto,
    )?;
    assert!(
        generic.text.contains(PROMO),
        "without rules the promotion is part of the story"
    );
    let (_farm, feed) = farm_with_story().await?;
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let cleaned = poll_one(site(config, &[], &[".extra"]).parse()?).await?;
    assert_ne!(cleaned.extractor, "rules");
    assert!(cleaned.text.contains("Paragraph 0 of story 1"));
    assert!(!cleaned.text.contains(PROMO));
    Ok(())
}

async fn a_feeds_page_type_is_what_its_articles_are_stored_as(db: TestDb) -> anyhow::Result<()> {
    let (_farm, feed) = farm_with_story().await?;
    let plain = TestConfig::new(&db)
        .loopback_farm()
        .feed("news", feed.clone());
    let detected = poll_one(plain.parse()?).await?;
    assert_eq!(detected.page_type, "article", "what extraction says");
    let other = TestDb::sqlite().await?;
    let config = TestConfig::new(&other)
        .loopback_farm()
        .feed("threads", feed)
        .feed_set("page_type", "forum");
    let article = poll_one(config.parse()?).await?;
    assert_eq!(article.page_type, "forum");
    assert!(article.text.contains("Paragraph 0 of story 1"));
    Ok(())
}

/// The site is the more specific: its `page_type` wins over its feed's; an entry with only a
/// `page_type` leaves extraction to the generic algorithm.
async fn a_sites_page_type_wins_over_its_feeds(db: TestDb) -> anyhow::Result<()> {
    let (_farm, feed) = farm_with_story().await?;
    let config = TestConfig::new(&db)
        .loopback_farm()
        .feed("news", feed)
        .feed_set("page_type", "documentation")
        .table_array(
            "sites",
            &[
                ("host", toml::Value::from("127.0.0.1")),
                ("page_type", toml::Value::from("forum")),
            ],
        );
    let article = poll_one(config.parse()?).await?;
    assert_eq!(article.page_type, "forum");
    assert_ne!(article.extractor, "rules");
    assert!(article.text.contains("Paragraph 0 of story 1"));
    Ok(())
}

#[test]
fn a_bad_selector_is_refused_with_its_place() {
    let text = "[[sites]]\nhost = \"www.example.com\"\ncontent = [\".story\", \"div[\"]\n";
    let error = Config::parse(text, Path::new("config.toml"), None)
        .expect_err("refused")
        .to_string();
    assert!(error.starts_with("config.toml:3:22:"), "{error}");
    assert!(error.contains("[[sites]] content: `div[`"), "{error}");
}

#[test]
fn a_wildcard_host_covers_subdomains_only() -> anyhow::Result<()> {
    let text = "[[sites]]\nhost = \"*.example.com\"\nremove = [\".ad\"]\n";
    let config = Config::parse(text, Path::new("config.toml"), None)?;
    let at = |u: &str| -> anyhow::Result<bool> {
        Ok(config.sites.for_url(&url::Url::parse(u)?).is_some())
    };
    assert!(at("https://news.example.com/a")?);
    assert!(!at("https://example.com/a")?);
    Ok(())
}
