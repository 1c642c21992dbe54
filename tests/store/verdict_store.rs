//! Each article's verdict and quality, stored, read back, exported, filtered on by listings and
//! claims (`min_quality`); a feed entry's content kept while the entry waits. Both databases.

use crate::api_support;
use crate::common;

use anyhow::Context as _;
use chrono::{Duration, Utc};
use common::TestDb;
use gleaner::store::claims::ClaimFilter;
use gleaner::store::{
    ArticleFilter, ArticleMetadata, EntryAttempt, EntryState, NewArticle, NewEntry, PageFields,
    Store, Verdict,
};
use serde_json::json;

on_both_databases!(
    verdict_and_quality_are_stored_read_back_and_exported,
    articles_below_min_quality_are_neither_listed_nor_claimed,
    the_api_claims_with_min_quality_and_refuses_a_bad_bound,
    reextraction_stores_the_new_verdict_and_quality,
    an_entrys_content_is_kept_while_it_waits_and_dropped_once_settled,
);

async fn feed(store: &Store) -> anyhow::Result<i64> {
    let feed = gleaner::config::FeedConfig::new(
        "news",
        "http://news.example/feed.xml".parse()?,
        gleaner::schedule::CronSchedule::parse("*/30 * * * *")?,
    );
    Ok(store.sync_feeds(&[feed]).await?[0].id)
}

fn article(feed_id: i64, n: u32, verdict: Verdict, quality: f64) -> NewArticle {
    NewArticle {
        feed_id,
        guid: Some(format!("urn:story:{n}")),
        url: format!("http://news.example/story/{n}"),
        canonical_url: None,
        title: format!("Story {n}"),
        author: None,
        summary: None,
        published_at: None,
        fetched_at: Utc::now(),
        language: Some("en".into()),
        extractor: "cuter".into(),
        confidence: 0.8,
        verdict,
        quality,
        text: format!("The text of story {n}."),
        html: format!("<p>The text of story {n}.</p>"),
        raw_page: None,
        raw_content_type: None,
        images: Vec::new(),
        metadata: ArticleMetadata::default(),
        page_type: Default::default(),
        posts: Vec::new(),
        enclosures: Vec::new(),
        kind: gleaner::store::EntryKind::Article,
        tags: Vec::new(),
    }
}

/// How many feed entries still hold content.
async fn entries_with_content(db: &TestDb) -> anyhow::Result<i64> {
    use sqlx::Connection as _;
    let sql = "SELECT COUNT(*) FROM feed_entries WHERE content IS NOT NULL";
    Ok(match &db.target {
        gleaner::config::DatabaseTarget::Sqlite { path } => {
            let url = format!("sqlite://{}", path.display());
            let mut connection = sqlx::SqliteConnection::connect(&url).await?;
            sqlx::query_scalar(sql).fetch_one(&mut connection).await?
        }
        gleaner::config::DatabaseTarget::Postgres { url } => {
            let mut connection = sqlx::PgConnection::connect(url).await?;
            sqlx::query_scalar(sql).fetch_one(&mut connection).await?
        }
    })
}

async fn verdict_and_quality_are_stored_read_back_and_exported(db: TestDb) -> anyhow::Result<()> {
    let store = &db.store;
    let feed_id = feed(store).await?;
    let teaser = store
        .insert_article(&article(feed_id, 1, Verdict::Teaser, 0.375))
        .await?
        .id();
    let mut from_feed = article(feed_id, 2, Verdict::Blocked, 0.9);
    from_feed.extractor = gleaner::store::FEED_EXTRACTOR.into();
    let from_feed = store.insert_article(&from_feed).await?.id();

    let stored = store.article(teaser).await?.context("stored")?;
    assert_eq!(
        (stored.verdict.as_str(), stored.quality),
        ("teaser", Some(0.375))
    );
    let record = store.article_record(from_feed).await?.context("record")?;
    let exported = serde_json::to_value(&record)?;
    assert_eq!(exported["extractor"], "feed");
    assert_eq!(exported["verdict"], "blocked");
    assert_eq!(exported["quality"], 0.9);
    let listed = store
        .list_articles(&ArticleFilter {
            limit: 10,
            ascending: true,
            ..Default::default()
        })
        .await?;
    let columns: Vec<(&str, Option<f64>)> = listed
        .iter()
        .map(|a| (a.verdict.as_str(), a.quality))
        .collect();
    assert_eq!(columns, [("teaser", Some(0.375)), ("blocked", Some(0.9))]);

    // A row stored before the estimates: an article, with no quality.
    common::faults::raw_execute(&db, "UPDATE articles SET quality = NULL").await?;
    let old = store.article_record(teaser).await?.context("record")?;
    assert_eq!(
        serde_json::to_value(&old)?["quality"],
        serde_json::Value::Null
    );
    Ok(())
}

async fn articles_below_min_quality_are_neither_listed_nor_claimed(
    db: TestDb,
) -> anyhow::Result<()> {
    let store = &db.store;
    let feed_id = feed(store).await?;
    let mut ids = Vec::new();
    for (n, quality) in [(1, 0.2), (2, 0.9), (3, 0.5), (4, 0.6)] {
        let id = store
            .insert_article(&article(feed_id, n, Verdict::Article, quality))
            .await?
            .id();
        ids.push(id);
    }
    // Story 4 was stored before quality was estimated.
    common::faults::raw_execute(
        &db,
        &format!("UPDATE articles SET quality = NULL WHERE id = {}", ids[3]),
    )
    .await?;

    let listed = |min_quality| async move {
        let rows = store
            .list_articles(&ArticleFilter {
                limit: 10,
                ascending: true,
                min_quality,
                ..Default::default()
            })
            .await?;
        anyhow::Ok(rows.into_iter().map(|a| a.id).collect::<Vec<_>>())
    };
    assert_eq!(listed(None).await?, ids);
    assert_eq!(listed(Some(0.5)).await?, [ids[1], ids[2], ids[3]]);
    assert_eq!(listed(Some(0.95)).await?, [ids[3]]);

    let lease = Duration::seconds(600);
    let claimed = |consumer: &'static str, min_quality| async move {
        let filter = ClaimFilter {
            min_quality,
            skip_duplicates: false,
            page_types: None,
        };
        let claims = store.claim(consumer, 10, lease, filter).await?;
        anyhow::Ok(claims.into_iter().map(|c| c.article.id).collect::<Vec<_>>())
    };
    assert_eq!(claimed("summarizer", Some(0.55)).await?, [ids[1], ids[3]]);
    // The articles passed over stay claimable, by a lower bound or none.
    assert_eq!(claimed("summarizer", Some(0.5)).await?, [ids[2]]);
    assert_eq!(claimed("summarizer", None).await?, [ids[0]]);
    assert_eq!(claimed("indexer", None).await?, ids);
    Ok(())
}

async fn the_api_claims_with_min_quality_and_refuses_a_bad_bound(db: TestDb) -> anyhow::Result<()> {
    let store = &db.store;
    let feed_id = feed(store).await?;
    let low = store
        .insert_article(&article(feed_id, 1, Verdict::Article, 0.3))
        .await?
        .id();
    let high = store
        .insert_article(&article(feed_id, 2, Verdict::Teaser, 0.8))
        .await?
        .id();
    let app = api_support::App::spawn(store, None).await?;
    let (status, body) = app
        .post_json(
            "/claims",
            &json!({"consumer": "summarizer", "min_quality": 0.5}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let claims = body["claims"].as_array().context("claims")?;
    assert_eq!(claims.len(), 1, "{body}");
    assert_eq!(claims[0]["article"]["id"], high);
    assert_eq!(claims[0]["article"]["verdict"], "teaser");
    assert_eq!(claims[0]["article"]["quality"], 0.8);
    for bad in [json!(1.5), json!(-0.1), json!("high")] {
        let (status, body) = app
            .post_json("/claims", &json!({"consumer": "s", "min_quality": bad}))
            .await?;
        assert_eq!(status, 400, "{bad}: {body}");
    }

    let (status, body) = app.get_json("/articles?min_quality=0.5").await?;
    assert_eq!(status, 200, "{body}");
    let listed: Vec<i64> = body["articles"]
        .as_array()
        .context("articles")?
        .iter()
        .filter_map(|a| a["id"].as_i64())
        .collect();
    assert_eq!(listed, [high]);
    let (status, _) = app.get_json("/articles?min_quality=2").await?;
    assert_eq!(status, 400);
    let (_, body) = app.get_json(&format!("/articles/{low}")).await?;
    assert_eq!(
        (body["verdict"].clone(), body["quality"].clone()),
        (json!("article"), json!(0.3))
    );
    Ok(())
}

async fn reextraction_stores_the_new_verdict_and_quality(db: TestDb) -> anyhow::Result<()> {
    let store = &db.store;
    let feed_id = feed(store).await?;
    let id = store
        .insert_article(&article(feed_id, 1, Verdict::Article, 0.7))
        .await?
        .id();
    let replaced = PageFields {
        extractor: "cetr".into(),
        confidence: 0.4,
        verdict: Verdict::Blocked,
        quality: 0.125,
        text: "Just a moment...".into(),
        html: "<p>Just a moment...</p>".into(),
        language: None,
        author: None,
        published_at: None,
        metadata: Default::default(),
        images: Vec::new(),
        page_type: Default::default(),
        posts: Vec::new(),
    };
    assert!(store.replace_extraction(id, &replaced).await?);
    let stored = store.article(id).await?.context("stored")?;
    assert_eq!(
        (
            stored.extractor.as_str(),
            stored.verdict.as_str(),
            stored.quality
        ),
        ("cetr", "blocked", Some(0.125))
    );
    Ok(())
}

async fn an_entrys_content_is_kept_while_it_waits_and_dropped_once_settled(
    db: TestDb,
) -> anyhow::Result<()> {
    let store = &db.store;
    let feed_id = feed(store).await?;
    let entry = |n: u32| NewEntry {
        guid: None,
        url: format!("http://news.example/story/{n}"),
        title: format!("Story {n}"),
        author: None,
        summary: Some("A summary.".into()),
        content: Some(format!("<p>The whole of story {n}.</p>")),
        published_at: None,
        enclosures: Vec::new(),
        tags: Vec::new(),
    };
    let now = Utc::now();
    store
        .remember_entries(feed_id, &[entry(1), entry(2), entry(3)], now)
        .await?;
    let due = store.due_entries(feed_id, now, 10).await?;
    let contents: Vec<Option<&str>> = due.iter().map(|e| e.content.as_deref()).collect();
    assert_eq!(
        contents,
        [
            Some("<p>The whole of story 1.</p>"),
            Some("<p>The whole of story 2.</p>"),
            Some("<p>The whole of story 3.</p>"),
        ]
    );
    let retrying = EntryAttempt {
        state: EntryState::Retrying,
        attempts: 1,
        next_attempt_at: now,
        error: Some("blocked: a challenge".into()),
    };
    store.record_entry_attempt(due[0].id, &retrying).await?;
    let given_up = EntryAttempt {
        state: EntryState::GivenUp,
        ..retrying.clone()
    };
    store.record_entry_attempt(due[1].id, &given_up).await?;
    store.block_entry(due[2].id, "block: title", now).await?;
    assert_eq!(entries_with_content(&db).await?, 1);
    let due = store.due_entries(feed_id, now, 10).await?;
    assert_eq!(
        due.iter().map(|e| e.content.as_deref()).collect::<Vec<_>>(),
        [Some("<p>The whole of story 1.</p>")]
    );
    Ok(())
}
