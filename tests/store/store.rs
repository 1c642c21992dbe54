//! The store suite: every test runs on a fresh SQLite file and on a fresh PostgreSQL schema.

use crate::common;

use std::collections::BTreeSet;

use anyhow::Context as _;
use chrono::{Duration, TimeZone, Utc};
use gleaner::config::{FeedConfig, WebhookConfig};
use gleaner::schedule::CronSchedule;
use gleaner::store::testing;
use gleaner::store::testing::StoreTesting as _;
use gleaner::store::{
    ArticleFilter, CompressedPage, FeedPoll, ImageContent, InsertOutcome, NewArticle, NewFailure,
    NewImage, PageEncoding, PageFields, Store, db_time, sha256_hex,
};

on_both_backends!(
    migrations_are_idempotent,
    article_with_images_round_trips,
    raw_pages_are_read_by_their_own_encoding,
    the_same_article_twice_keeps_one_row,
    ids_are_a_strictly_increasing_cursor,
    concurrent_writers_never_hide_an_id_from_a_cursor_reader,
    image_bytes_are_stored_once_per_sha256,
    a_failed_write_leaves_nothing_behind,
    feeds_follow_the_configuration,
    poll_state_counts_consecutive_errors,
    search_finds_words_of_the_body,
    a_match_deep_in_a_long_text_is_highlighted_in_its_snippet,
    search_never_fails_on_user_text,
    articles_written_together_are_all_found_by_search,
    listings_filter_by_feed_time_and_cursor,
    failures_are_recorded,
    articles_written_together_are_queued_for_their_webhooks,
    settled_entries_their_feed_stopped_listing_are_forgotten,
    a_removed_webhook_waits_a_month_then_is_forgotten,
);

fn feed(name: &str, url: &str) -> FeedConfig {
    FeedConfig::new(
        name,
        url.parse().expect("test URL"),
        CronSchedule::parse("*/15 * * * *").expect("test schedule"),
    )
}

async fn one_feed(store: &Store) -> anyhow::Result<i64> {
    let feeds = store
        .sync_feeds(&[feed("example", "https://example.org/feed.xml")])
        .await?;
    Ok(feeds[0].id)
}

fn article(feed_id: i64, n: u32) -> NewArticle {
    NewArticle {
        feed_id,
        guid: Some(format!("urn:example:{n}")),
        url: format!("https://example.org/articles/{n}"),
        canonical_url: None,
        title: format!("Article number {n}"),
        author: None,
        summary: None,
        published_at: None,
        fetched_at: db_time(Utc::now()),
        language: None,
        extractor: "cuter".to_string(),
        confidence: 0.5,
        verdict: gleaner::store::Verdict::Article,
        quality: 0.5,
        text: format!("The body of article {n}.\n\nA second paragraph."),
        html: format!("<p>The body of article {n}.</p><p>A second paragraph.</p>"),
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

fn png(seed: u8) -> ImageContent {
    ImageContent {
        mime: "image/png".to_string(),
        bytes: vec![0x89, b'P', b'N', b'G', seed, seed, seed],
    }
}

async fn migrations_are_idempotent(store: Store) -> anyhow::Result<()> {
    store.migrate().await?;
    store.migrate().await?;
    assert_eq!(store.applied_migrations().await?, common::MIGRATIONS);
    store.ping().await?;
    Ok(())
}

/// Pages stored as gzip before migration 0005 and as zstd since: each row is read back by its
/// own `raw_encoding`.
async fn raw_pages_are_read_by_their_own_encoding(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let raw = "<html><body><p>An older page, and a newer one.</p></body></html>".repeat(40);
    let mut ids = Vec::new();
    for (n, page) in [
        testing::compress_gzip(raw.as_bytes())?,
        CompressedPage::compress(raw.as_bytes())?,
    ]
    .into_iter()
    .enumerate()
    {
        let mut new = article(feed_id, n as u32 + 1);
        new.raw_page = Some(page);
        ids.push(store.insert_article(&new).await?.id());
    }
    for (id, encoding) in ids
        .into_iter()
        .zip([PageEncoding::Gzip, PageEncoding::Zstd])
    {
        let (page, _) = store.raw_page(id).await?.context("raw page is kept")?;
        assert_eq!(page.encoding(), encoding);
        assert_eq!(page.decompress()?, raw.as_bytes());
    }
    Ok(())
}

async fn article_with_images_round_trips(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let raw = "<html><body><p>Grüße, 世界</p></body></html>".repeat(50);
    let mut new = article(feed_id, 1);
    new.canonical_url = Some("https://example.org/canonical/1".to_string());
    new.author = Some("Ada Lovelace".to_string());
    new.summary = Some("A summary from the feed.".to_string());
    new.published_at = Some(
        Utc.with_ymd_and_hms(2026, 3, 14, 15, 9, 26)
            .single()
            .context("date")?
            + Duration::microseconds(535_897),
    );
    new.fetched_at = db_time(Utc::now());
    new.language = Some("de".to_string());
    new.confidence = 0.875;
    new.text = "Grüße, 世界 — a body with ünïcödé.\n\nSecond block.".to_string();
    new.html = "<p>Grüße, 世界 — a body with ünïcödé.</p><p>Second block.</p>".to_string();
    new.raw_page = Some(CompressedPage::compress(raw.as_bytes())?);
    new.raw_content_type = Some("text/html; charset=utf-8".to_string());
    new.images = vec![
        NewImage {
            url: "https://example.org/a.png".to_string(),
            alt: Some("first".to_string()),
            caption: Some("The first figure".to_string()),
            width: Some(640),
            height: Some(480),
            content: Some(png(1)),
        },
        NewImage {
            url: "https://example.org/b.jpg".to_string(),
            alt: None,
            caption: None,
            width: None,
            height: None,
            content: None,
        },
    ];

    let id = match store.insert_article(&new).await? {
        InsertOutcome::Inserted(id) => id,
        other => anyhow::bail!("expected an insert, got {other:?}"),
    };
    let stored = store.article(id).await?.context("article is stored")?;
    assert_eq!(stored.id, id);
    assert_eq!(stored.feed_id, feed_id);
    assert_eq!(stored.feed, "example");
    assert_eq!(stored.guid, new.guid);
    assert_eq!(stored.url, new.url);
    assert_eq!(stored.canonical_url, new.canonical_url);
    assert_eq!(stored.title, new.title);
    assert_eq!(stored.author, new.author);
    assert_eq!(stored.summary, new.summary);
    assert_eq!(stored.published_at, new.published_at);
    assert_eq!(stored.fetched_at, new.fetched_at);
    assert_eq!(stored.language, new.language);
    assert_eq!(stored.extractor, new.extractor);
    assert_eq!(stored.confidence, new.confidence);
    assert_eq!(stored.text, new.text);
    assert_eq!(stored.html, new.html);
    assert_eq!(stored.word_count, 8);
    assert_eq!(stored.content_hash, sha256_hex(new.text.as_bytes()));

    let (page, content_type) = store.raw_page(id).await?.context("raw page is kept")?;
    assert_eq!(page.decompress()?, raw.as_bytes());
    assert!(
        page.as_bytes().len() < raw.len() / 4,
        "the raw page is compressed"
    );
    assert_eq!(page.encoding(), PageEncoding::Zstd);
    assert_eq!(content_type, new.raw_content_type);

    let images = store.article_images(id).await?;
    assert_eq!(images.len(), 2);
    let (first, second) = (&images[0], &images[1]);
    assert_eq!(
        (first.position, first.url.as_str()),
        (0, "https://example.org/a.png")
    );
    assert_eq!(first.alt.as_deref(), Some("first"));
    assert_eq!(first.caption.as_deref(), Some("The first figure"));
    assert_eq!((first.width, first.height), (Some(640), Some(480)));
    assert_eq!(first.mime.as_deref(), Some("image/png"));
    assert_eq!(first.size, Some(7));
    let sha = first
        .sha256
        .clone()
        .context("downloaded image has a sha256")?;
    assert_eq!(sha, sha256_hex(&png(1).bytes));
    assert_eq!((second.position, second.sha256.as_deref()), (1, None));
    assert_eq!((second.mime.as_deref(), second.size), (None, None));

    let blob = store.image_blob(&sha).await?.context("blob is stored")?;
    assert_eq!((blob.mime.as_str(), blob.size), ("image/png", 7));
    assert_eq!(blob.bytes, png(1).bytes);
    assert!(store.image_blob(&"0".repeat(64)).await?.is_none());
    assert!(store.article(id + 1000).await?.is_none());
    Ok(())
}

async fn the_same_article_twice_keeps_one_row(store: Store) -> anyhow::Result<()> {
    let feeds = store
        .sync_feeds(&[
            feed("one", "https://one.example/feed"),
            feed("two", "https://two.example/feed"),
        ])
        .await?;
    let (one, two) = (feeds[0].id, feeds[1].id);
    let first = store.insert_article(&article(one, 1)).await?;
    let InsertOutcome::Inserted(id) = first else {
        anyhow::bail!("first insert must insert, got {first:?}");
    };
    // The very same entry again.
    assert_eq!(
        store.insert_article(&article(one, 1)).await?,
        InsertOutcome::Duplicate(id)
    );
    // Same URL from another feed.
    let mut other_feed = article(two, 1);
    other_feed.guid = Some("something-else".to_string());
    assert_eq!(
        store.insert_article(&other_feed).await?,
        InsertOutcome::Duplicate(id)
    );
    // Same GUID in the same feed under a new URL.
    let mut moved = article(one, 1);
    moved.url = "https://example.org/moved".to_string();
    assert_eq!(
        store.insert_article(&moved).await?,
        InsertOutcome::Duplicate(id)
    );
    // Same GUID in another feed, new URL: a different article.
    let mut elsewhere = article(two, 1);
    elsewhere.url = "https://two.example/1".to_string();
    assert!(matches!(
        store.insert_article(&elsewhere).await?,
        InsertOutcome::Inserted(_)
    ));

    assert_eq!(
        store
            .known_article(one, Some("urn:example:1"), "https://nowhere.example/")
            .await?,
        Some(id)
    );
    assert_eq!(
        store
            .known_article(two, None, "https://example.org/articles/1")
            .await?,
        Some(id)
    );
    assert_eq!(
        store
            .known_article(one, None, "https://new.example/")
            .await?,
        None
    );
    let all = store
        .list_articles(&ArticleFilter {
            limit: 100,
            ..Default::default()
        })
        .await?;
    assert_eq!(all.len(), 2);
    Ok(())
}

async fn ids_are_a_strictly_increasing_cursor(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let mut previous = 0;
    for n in 0..20 {
        let id = store.insert_article(&article(feed_id, n)).await?.id();
        assert!(id > previous, "id {id} after {previous}");
        previous = id;
        // A rejected duplicate in between must not reuse or reorder ids.
        store.insert_article(&article(feed_id, n)).await?;
    }
    let page = store
        .list_articles(&ArticleFilter {
            after_id: Some(0),
            limit: 7,
            ascending: true,
            ..Default::default()
        })
        .await?;
    let rest = store
        .list_articles(&ArticleFilter {
            after_id: page.last().map(|a| a.id),
            limit: 100,
            ascending: true,
            ..Default::default()
        })
        .await?;
    let ids: Vec<i64> = page.iter().chain(&rest).map(|a| a.id).collect();
    assert_eq!(ids.len(), 20);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    Ok(())
}

async fn concurrent_writers_never_hide_an_id_from_a_cursor_reader(
    store: Store,
) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let mut writers = Vec::new();
    for writer in 0..4u32 {
        let store = store.clone();
        writers.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for n in 0..25 {
                let mut new = article(feed_id, writer * 1000 + n);
                new.text = "word ".repeat(2000);
                ids.push(store.insert_article(&new).await?.id());
            }
            anyhow::Ok(ids)
        }));
    }
    let reader = {
        let store = store.clone();
        tokio::spawn(async move {
            let mut cursor = 0;
            let mut seen = Vec::new();
            for _ in 0..10_000 {
                let batch = store
                    .list_articles(&ArticleFilter {
                        after_id: Some(cursor),
                        limit: 1000,
                        ascending: true,
                        ..Default::default()
                    })
                    .await?;
                for row in batch {
                    anyhow::ensure!(row.id > cursor, "cursor went backwards");
                    cursor = row.id;
                    seen.push(row.id);
                }
                if seen.len() >= 100 {
                    break;
                }
                tokio::task::yield_now().await;
            }
            anyhow::Ok(seen)
        })
    };
    let mut written = BTreeSet::new();
    for writer in writers {
        written.extend(writer.await??);
    }
    let seen: BTreeSet<i64> = reader.await??.into_iter().collect();
    assert_eq!(written.len(), 100);
    assert_eq!(seen, written, "a cursor reader saw every id exactly once");
    Ok(())
}

async fn image_bytes_are_stored_once_per_sha256(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let shared = NewImage {
        url: "https://cdn.example/logo.png".to_string(),
        alt: None,
        caption: None,
        width: None,
        height: None,
        content: Some(png(7)),
    };
    let mut first = article(feed_id, 1);
    first.images = vec![shared.clone(), shared.clone()];
    let mut second = article(feed_id, 2);
    second.images = vec![NewImage {
        url: "https://mirror.example/same.png".to_string(),
        ..shared
    }];
    let a = store.insert_article(&first).await?.id();
    let b = store.insert_article(&second).await?.id();
    let sha = sha256_hex(&png(7).bytes);
    for id in [a, b] {
        for image in store.article_images(id).await? {
            assert_eq!(image.sha256.as_deref(), Some(sha.as_str()));
        }
    }
    assert_eq!(store.article_images(a).await?.len(), 2);
    assert!(store.image_blob(&sha).await?.is_some());
    Ok(())
}

async fn a_failed_write_leaves_nothing_behind(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let mut orphan = article(feed_id + 999, 1);
    orphan.images = vec![NewImage {
        url: "https://example.org/x.png".to_string(),
        alt: None,
        caption: None,
        width: None,
        height: None,
        content: Some(png(3)),
    }];
    let error = store
        .insert_article(&orphan)
        .await
        .expect_err("unknown feed is refused");
    assert!(
        error.to_string().contains("inserting an article"),
        "{error}"
    );
    assert!(
        store
            .image_blob(&sha256_hex(&png(3).bytes))
            .await?
            .is_none()
    );
    let all = store
        .list_articles(&ArticleFilter {
            limit: 10,
            ..Default::default()
        })
        .await?;
    assert!(all.is_empty());
    // The store still works afterwards.
    store.insert_article(&article(feed_id, 1)).await?;
    Ok(())
}

async fn feeds_follow_the_configuration(store: Store) -> anyhow::Result<()> {
    let initial = store
        .sync_feeds(&[
            feed("alpha", "https://alpha.example/feed"),
            feed("beta", "https://beta.example/feed"),
        ])
        .await?;
    assert_eq!(initial.len(), 2);
    let alpha = initial
        .iter()
        .find(|f| f.name == "alpha")
        .context("alpha")?;
    let due = db_time(Utc::now() + Duration::minutes(5));
    store
        .record_feed_poll(
            alpha.id,
            &FeedPoll {
                polled_at: db_time(Utc::now()),
                status: gleaner::store::PollStatus::Ok,
                error: None,
                etag: Some("\"v1\"".to_string()),
                last_modified: Some("Mon, 02 Nov 2026 10:00:00 GMT".to_string()),
                title: Some("Alpha".to_string()),
                site_url: Some("https://alpha.example/".to_string()),
                next_due_at: due,
            },
        )
        .await?;
    store.insert_article(&article(alpha.id, 1)).await?;

    // Same name and URL: state kept. beta removed: inactive, its row stays.
    let again = store
        .sync_feeds(&[feed("alpha", "https://alpha.example/feed")])
        .await?;
    let alpha = again.iter().find(|f| f.name == "alpha").context("alpha")?;
    assert!(alpha.active);
    assert_eq!(alpha.etag.as_deref(), Some("\"v1\""));
    assert_eq!(alpha.next_due_at, Some(due));
    assert_eq!(alpha.title.as_deref(), Some("Alpha"));
    assert_eq!(alpha.articles, 1);
    let beta = again.iter().find(|f| f.name == "beta").context("beta")?;
    assert!(!beta.active);

    // A new URL for the same name drops the old validators; the articles stay.
    let moved = store
        .sync_feeds(&[feed("alpha", "https://alpha.example/atom")])
        .await?;
    let alpha = moved.iter().find(|f| f.name == "alpha").context("alpha")?;
    assert_eq!(alpha.url, "https://alpha.example/atom");
    assert_eq!(
        (alpha.etag.as_deref(), alpha.last_modified.as_deref()),
        (None, None)
    );
    assert_eq!(alpha.next_due_at, None);
    assert_eq!(alpha.articles, 1);
    assert_eq!(
        store.feed_by_name("alpha").await?.map(|f| f.id),
        Some(alpha.id)
    );
    assert!(store.feed_by_name("gamma").await?.is_none());
    Ok(())
}

async fn poll_state_counts_consecutive_errors(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let poll = |error: Option<&str>| FeedPoll {
        polled_at: db_time(Utc::now()),
        status: if error.is_some() {
            gleaner::store::PollStatus::Failed(gleaner::fetch::FetchErrorKind::HttpStatus.into())
        } else {
            gleaner::store::PollStatus::Ok
        },
        error: error.map(str::to_string),
        etag: None,
        last_modified: None,
        title: None,
        site_url: None,
        next_due_at: db_time(Utc::now() + Duration::minutes(15)),
    };
    store
        .record_feed_poll(feed_id, &poll(Some("HTTP 500")))
        .await?;
    store
        .record_feed_poll(feed_id, &poll(Some("HTTP 503")))
        .await?;
    let state = store.feed_by_name("example").await?.context("feed")?;
    assert_eq!(state.error_count, 2);
    assert_eq!(state.last_error.as_deref(), Some("HTTP 503"));
    assert_eq!(state.last_status.as_deref(), Some("http_status"));
    store.record_feed_poll(feed_id, &poll(None)).await?;
    let state = store.feed_by_name("example").await?.context("feed")?;
    assert_eq!((state.error_count, state.last_error), (0, None));
    let next = db_time(Utc::now() + Duration::hours(2));
    store.set_feed_next_due(feed_id, next).await?;
    assert_eq!(
        store
            .feed_by_name("example")
            .await?
            .and_then(|f| f.next_due_at),
        Some(next)
    );
    Ok(())
}

async fn search_finds_words_of_the_body(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let mut body_only = article(feed_id, 1);
    body_only.title = "Quarterly report".to_string();
    body_only.text = "Revenue grew while the platypus population stayed stable.".to_string();
    let mut title_match = article(feed_id, 2);
    title_match.title = "Platypus sightings rise".to_string();
    title_match.text = "Rangers counted more platypus nests this spring.".to_string();
    let mut unrelated = article(feed_id, 3);
    unrelated.text = "Nothing to see here.".to_string();
    let body_id = store.insert_article(&body_only).await?.id();
    let title_id = store.insert_article(&title_match).await?.id();
    store.insert_article(&unrelated).await?;

    let hits = store.search("platypus", 10).await?;
    let ids: Vec<i64> = hits.iter().map(|h| h.id).collect();
    assert_eq!(ids, vec![title_id, body_id], "title matches rank first");
    assert!(
        hits[1].snippet.contains("«platypus»"),
        "{}",
        hits[1].snippet
    );
    assert!(hits[0].score >= hits[1].score);

    let hits = store.search("PLATYPUS revenue", 10).await?;
    assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![body_id]);
    assert!(store.search("nonexistentword", 10).await?.is_empty());
    assert_eq!(store.search("platypus", 1).await?.len(), 1);
    Ok(())
}

/// Articles stored in one shared transaction are indexed for search together (on SQLite one
/// index statement per batch, after the batch's inserts); a duplicate in the batch adds no row,
/// and a re-extraction replaces what search finds.
/// A snippet highlights the match wherever it lies in a long text, in whichever form the text
/// writes it, also where the stem is not how the text spells the word: a snippet made from a
/// part of the text (to spare PostgreSQL's `ts_headline` the whole of it) must still hold it.
async fn a_match_deep_in_a_long_text_is_highlighted_in_its_snippet(
    store: Store,
) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let filler = "The brunch crowd lingered over coffee on the terrace. ".repeat(80);
    let mut deep = article(feed_id, 1);
    deep.title = "Weekend notes".to_string();
    deep.text = format!("{filler}\n(Running) the river trail took an hour.\n\n{filler}");
    let mut city = article(feed_id, 2);
    city.title = "Traffic report".to_string();
    city.text = format!("{filler} The city closed the bridge. {filler}");
    store.insert_article(&deep).await?;
    store.insert_article(&city).await?;

    let hits = store.search("running", 10).await?;
    assert_eq!(hits.len(), 1);
    assert!(hits[0].snippet.contains("«Running»"), "{}", hits[0].snippet);
    let hits = store.search("cities", 10).await?;
    assert_eq!(hits.len(), 1);
    assert!(hits[0].snippet.contains("«city»"), "{}", hits[0].snippet);
    Ok(())
}

async fn articles_written_together_are_all_found_by_search(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let with_word = |n: u32| {
        let mut stored = article(feed_id, n);
        stored.text = format!("Field notes {n}: the keeper counted wombat{n} twice.");
        stored
    };
    let first = store.insert_article(&with_word(0)).await?.id();
    let mut writers = Vec::new();
    // n = 0 repeats the article above: a duplicate inside the batch.
    for n in 0..24u32 {
        let store = store.clone();
        let stored = with_word(n);
        writers.push(tokio::spawn(
            async move { store.insert_article(&stored).await },
        ));
    }
    let mut ids = Vec::new();
    for writer in writers {
        ids.push(writer.await??.id());
    }
    assert_eq!(ids[0], first);
    for (n, id) in ids.iter().enumerate() {
        let hits = store.search(&format!("wombat{n}"), 10).await?;
        assert_eq!(
            hits.iter().map(|hit| hit.id).collect::<Vec<_>>(),
            vec![*id],
            "wombat{n}"
        );
    }
    assert_eq!(store.search("keeper", 100).await?.len(), 24);

    let replaced = PageFields {
        extractor: "cuter".to_string(),
        confidence: 0.9,
        verdict: gleaner::store::Verdict::Article,
        quality: 0.9,
        text: "The keeper now counts echidnas.".to_string(),
        html: "<p>The keeper now counts echidnas.</p>".to_string(),
        language: None,
        author: None,
        published_at: None,
        metadata: Default::default(),
        images: Vec::new(),
        page_type: Default::default(),
        posts: Vec::new(),
    };
    assert!(store.replace_extraction(ids[5], &replaced).await?);
    assert!(store.search("wombat5", 10).await?.is_empty());
    let hits = store.search("echidnas", 10).await?;
    assert_eq!(
        hits.iter().map(|hit| hit.id).collect::<Vec<_>>(),
        vec![ids[5]]
    );
    assert_eq!(store.search("keeper", 100).await?.len(), 24);
    Ok(())
}

/// Whatever the text, a search answers or refuses it as a query it cannot read: the
/// database never sees a syntax error of its own, and nothing is changed.
async fn search_never_fails_on_user_text(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    store.insert_article(&article(feed_id, 1)).await?;
    for query in [
        "a AND",
        "NEAR(",
        "x:* & y | !z",
        "'quoted' \\back\\slash \"a'b\"",
        "col:umn^ {brace} +plus",
        "'; DROP TABLE articles; --x",
    ] {
        store
            .search(query, 5)
            .await
            .with_context(|| format!("query {query:?}"))?;
    }
    for query in [
        "",
        "   ",
        "\"",
        "*",
        "-x",
        "(((",
        "a OR",
        "'; DROP TABLE articles; --",
    ] {
        let answer = store.search(query, 5).await;
        assert!(
            matches!(answer, Err(gleaner::store::StoreError::SearchQuery(_))),
            "query {query:?}: {answer:?}"
        );
    }
    assert_eq!(
        store
            .list_articles(&ArticleFilter {
                limit: 5,
                ..Default::default()
            })
            .await?
            .len(),
        1
    );
    Ok(())
}

async fn listings_filter_by_feed_time_and_cursor(store: Store) -> anyhow::Result<()> {
    let feeds = store
        .sync_feeds(&[
            feed("one", "https://one.example/feed"),
            feed("two", "https://two.example/feed"),
        ])
        .await?;
    let base = db_time(Utc::now() - Duration::days(3));
    for n in 0..6u32 {
        let mut new = article(feeds[(n % 2) as usize].id, n);
        new.fetched_at = base + Duration::days(i64::from(n / 2));
        store.insert_article(&new).await?;
    }
    let all = |filter: ArticleFilter| {
        let store = store.clone();
        async move {
            store
                .list_articles(&ArticleFilter {
                    limit: 100,
                    ..filter
                })
                .await
        }
    };
    let newest_first = all(ArticleFilter::default()).await?;
    assert_eq!(newest_first.len(), 6);
    assert!(newest_first.windows(2).all(|w| w[0].id > w[1].id));
    let one = all(ArticleFilter {
        feed: Some("one".into()),
        ..Default::default()
    })
    .await?;
    assert_eq!(one.len(), 3);
    assert!(one.iter().all(|a| a.feed == "one"));
    let recent = all(ArticleFilter {
        since: Some(base + Duration::days(1)),
        ..Default::default()
    })
    .await?;
    assert_eq!(recent.len(), 4);
    let after = all(ArticleFilter {
        after_id: Some(newest_first[2].id),
        ..Default::default()
    })
    .await?;
    assert_eq!(after.len(), 2);
    let limited = store
        .list_articles(&ArticleFilter {
            limit: 2,
            ..Default::default()
        })
        .await?;
    assert_eq!(limited.len(), 2);
    Ok(())
}

async fn failures_are_recorded(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    store
        .record_failure(&NewFailure {
            feed_id: Some(feed_id),
            article_url: None,
            stage: gleaner::store::Stage::Feed,
            kind: gleaner::fetch::FetchErrorKind::HttpStatus.into(),
            message: "HTTP 500 Internal Server Error".into(),
        })
        .await?;
    store
        .record_failure(&NewFailure {
            feed_id: None,
            article_url: Some("https://example.org/broken".into()),
            stage: gleaner::store::Stage::Page,
            kind: gleaner::fetch::FetchErrorKind::Timeout.into(),
            message: "no answer in 30 s".into(),
        })
        .await?;
    let failures = store.recent_failures(10).await?;
    assert_eq!(failures.len(), 2);
    assert_eq!(failures[0].kind, "timeout");
    assert_eq!(failures[0].feed, None);
    assert_eq!(failures[1].feed.as_deref(), Some("example"));
    assert_eq!(store.recent_failures(1).await?.len(), 1);
    Ok(())
}

#[tokio::test]
async fn postgres_announces_each_new_article() -> anyhow::Result<()> {
    // A database of its own: a notification reaches every listener of the database, and the
    // other tests' articles, in schemas of the same database, would be announced here too.
    let Some(db) =
        common::TestDb::postgres_own_database("postgres_announces_each_new_article").await?
    else {
        return Ok(());
    };
    let mut listener = sqlx::postgres::PgListener::connect(&db.url()).await?;
    listener.listen("gleaner_articles").await?;
    let feed_id = one_feed(&db.store).await?;
    let id = db.store.insert_article(&article(feed_id, 1)).await?.id();
    // A duplicate is not announced: the next notification is the next new article.
    db.store.insert_article(&article(feed_id, 1)).await?;
    let second = db.store.insert_article(&article(feed_id, 2)).await?.id();
    for expected in [id, second] {
        let notification =
            tokio::time::timeout(std::time::Duration::from_secs(10), listener.recv()).await??;
        assert_eq!(notification.channel(), "gleaner_articles");
        assert_eq!(notification.payload(), expected.to_string());
    }
    Ok(())
}

/// Concurrent writes share transactions; every inserted article of a batch is queued for each
/// webhook that takes its feed, and a duplicate for none.
async fn articles_written_together_are_queued_for_their_webhooks(
    store: Store,
) -> anyhow::Result<()> {
    let feeds = store
        .sync_feeds(&[
            feed("wanted", "https://example.org/wanted.xml"),
            feed("other", "https://example.org/other.xml"),
        ])
        .await?;
    let id_of = |name: &str| -> anyhow::Result<i64> {
        let feed = feeds.iter().find(|f| f.name == name);
        Ok(feed.context("a configured feed")?.id)
    };
    let (wanted, other) = (id_of("wanted")?, id_of("other")?);
    let webhook = |url: &str, feeds: Option<Vec<String>>| -> anyhow::Result<WebhookConfig> {
        Ok(WebhookConfig {
            url: url.parse()?,
            feeds,
            secret: None,
            retry_after: std::time::Duration::from_secs(60),
            max_attempts: 3,
            skip_duplicates: false,
        })
    };
    let every_feed = webhook("https://hooks.example.org/all", None)?;
    let one_feed = webhook("https://hooks.example.org/one", Some(vec!["wanted".into()]))?;
    store
        .sync_webhooks(&[every_feed.clone(), one_feed.clone()])
        .await?;
    let first = store.insert_article(&article(wanted, 0)).await?.id();

    // Even n to "wanted", odd to "other"; n = 0 repeats the article above: a duplicate.
    let mut writers = Vec::new();
    for n in 0..20u32 {
        let store = store.clone();
        let feed_id = if n % 2 == 0 { wanted } else { other };
        writers.push(tokio::spawn(async move {
            store.insert_article(&article(feed_id, n)).await
        }));
    }
    let mut outcomes = Vec::new();
    for writer in writers {
        outcomes.push(writer.await??);
    }
    let duplicates = outcomes
        .iter()
        .filter(|o| matches!(o, InsertOutcome::Duplicate(_)))
        .count();
    assert_eq!(duplicates, 1);

    let deliveries = store.deliveries().await?;
    let queued = |key: &str| -> BTreeSet<i64> {
        deliveries
            .iter()
            .filter(|d| d.webhook_key == key)
            .map(|d| d.article_id)
            .collect()
    };
    let all_ids: BTreeSet<i64> = outcomes.iter().map(|o| o.id()).collect();
    assert_eq!(all_ids.len(), 20);
    assert!(all_ids.contains(&first));
    let wanted_ids: BTreeSet<i64> = outcomes.iter().step_by(2).map(|o| o.id()).collect();
    assert_eq!(queued(&every_feed.key()), all_ids);
    assert_eq!(queued(&one_feed.key()), wanted_ids);
    assert_eq!(deliveries.len(), 30);
    Ok(())
}

/// A full disk (SQLite: the file capped at its size with `max_page_count`, which PostgreSQL
/// has no counterpart of) fails the writes that need room, and `/healthz` says so; once there
/// is room again, every connection of the pool writes (none is left inside the transaction
/// SQLite rolled back on its own), and a poll and a claim work at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_fails_writes_then_everything_works_again_at_once() -> anyhow::Result<()> {
    use gleaner::store::SizeCap;
    let db = common::TestDb::sqlite().await?;
    let farm = common::farm::Farm::start().await?;
    let url = farm.story_feed(1, 10, false, common::farm::html_route);
    // A document of many entries: remembering them needs new pages, and SQLite answers a full
    // disk there by rolling the whole transaction back.
    let many: Vec<common::farm::Item> = (0..400)
        .map(|n| common::farm::Item {
            guid: format!("many-{n}"),
            url: farm.url(&format!("/many/{n}.html")),
            title: format!(
                "Entry {n} of a long feed, titled at some length {}",
                "x".repeat(100)
            ),
        })
        .collect();
    farm.route(
        "/many.xml",
        common::farm::ok("application/rss+xml", common::farm::rss(&many).into()),
    );
    let config = common::TestConfig::new(&db)
        .loopback_farm()
        .set("fetch", "article_retry_seconds", 0)
        .feed("news", url)
        .feed("many", farm.url("/many.xml"))
        .parse()?;
    let ctx = gleaner::daemon::prepare(config).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let listen = listener.local_addr()?;
    let stop = tokio_util::sync::CancellationToken::new();
    let server = tokio::spawn(gleaner::api::serve(
        listener,
        ctx.store.clone(),
        gleaner::config::ApiConfig::new(listen, None),
        stop.clone(),
    ));
    let client = reqwest::Client::builder().no_proxy().build()?;
    let get = |path: &str| {
        let request = client.get(format!("http://{listen}{path}"));
        async move { anyhow::Ok(request.send().await?.text().await?) }
    };

    ctx.store.cap_sqlite_size(SizeCap::AtCurrentSize).await?;
    // The free room left in the file's pages takes an article or two, and no more.
    let (full, _) = common::poll(&ctx).await?;
    assert!(full.new_articles < 10, "{full:?}");
    let feed_id = ctx.store.feed_by_name("news").await?.context("feed")?.id;
    let mut large = article(feed_id, 1);
    large.text = "word ".repeat(200_000);
    let refused = ctx.store.insert_article(&large).await;
    assert!(
        refused
            .as_ref()
            .is_err_and(|error| error.to_string().contains("full")),
        "{refused:?}"
    );
    let health: serde_json::Value = serde_json::from_str(&get("/healthz").await?)?;
    assert_eq!(health["status"], "degraded", "{health}");
    let failing = health["failing_writes"]
        .as_array()
        .context("failing_writes")?;
    assert!(
        failing.iter().any(|write| write["kind"] == "full"),
        "{health}"
    );
    let metrics = get("/metrics").await?;
    assert!(
        !metrics.contains("\ngleaner_store_writes_failing 0\n"),
        "{metrics}"
    );

    ctx.store.cap_sqlite_size(SizeCap::Lifted).await?;
    // More write transactions than the pool has connections, handed out oldest first.
    for _ in 0..10 {
        ctx.store.sync_feeds(&ctx.config.feeds).await?;
    }
    let (recovered, _) = common::poll(&ctx).await?;
    assert_eq!(recovered.errors, 0, "{recovered:?}");
    assert_eq!(
        full.new_articles + recovered.new_articles,
        10,
        "{recovered:?}"
    );
    let health: serde_json::Value = serde_json::from_str(&get("/healthz").await?)?;
    assert_eq!(health["status"], "ok", "{health}");
    assert!(ctx.store.discarded_connections() >= 1);
    let claim = client
        .post(format!("http://{listen}/claims"))
        .header("content-type", "application/json")
        .body(r#"{"consumer": "reader", "limit": 20, "lease_seconds": 60}"#)
        .send()
        .await?;
    assert_eq!(claim.status(), 200);
    let claimed: serde_json::Value = serde_json::from_str(&claim.text().await?)?;
    assert_eq!(
        claimed["claims"].as_array().map(Vec::len),
        Some(10),
        "{claimed}"
    );
    stop.cancel();
    server.await??;
    Ok(())
}

/// Entries A, B (settled as stored) and C (waiting) are listed; forty days later the feed
/// lists only B. Forgetting what was last listed over thirty days ago removes A alone: B is
/// still listed (its page is never downloaded again, whatever its age) and C still waits. A,
/// listed again, is a new entry.
async fn settled_entries_their_feed_stopped_listing_are_forgotten(
    store: Store,
) -> anyhow::Result<()> {
    use gleaner::store::{EntryAttempt, NewEntry};
    let feed_id = one_feed(&store).await?;
    let entry = |name: &str| NewEntry {
        guid: None,
        url: format!("https://example.org/{name}"),
        title: name.to_string(),
        author: None,
        summary: None,
        content: None,
        published_at: None,
        enclosures: Vec::new(),
        tags: Vec::new(),
    };
    let first = db_time(Utc::now()) - chrono::Duration::days(40);
    store
        .remember_entries(feed_id, &[entry("a"), entry("b"), entry("c")], first)
        .await?;
    for due in store.due_entries(feed_id, first, 10).await? {
        if due.url.ends_with("/c") {
            continue;
        }
        store
            .record_entry_attempt(due.id, &EntryAttempt::stored(1, first))
            .await?;
    }
    let later = db_time(Utc::now());
    store
        .remember_entries(feed_id, &[entry("b")], later)
        .await?;

    let forgotten = store
        .forget_entries(later - chrono::Duration::days(30))
        .await?;
    assert_eq!(forgotten, 1, "only the settled entry no longer listed");

    store
        .remember_entries(feed_id, &[entry("a"), entry("b")], later)
        .await?;
    let mut due: Vec<String> = store
        .due_entries(feed_id, later, 10)
        .await?
        .into_iter()
        .map(|entry| entry.url)
        .collect();
    due.sort();
    assert_eq!(
        due,
        ["https://example.org/a", "https://example.org/c"],
        "A is new again, B stays stored, C still waits"
    );
    Ok(())
}

/// A webhook with a pending delivery leaves the configuration: its delivery waits (not due
/// while it is removed, due again once it is configured again); removed for longer than the
/// cutoff, it is forgotten with its deliveries, and configured again it starts empty.
async fn a_removed_webhook_waits_a_month_then_is_forgotten(store: Store) -> anyhow::Result<()> {
    let feed_id = one_feed(&store).await?;
    let hook = WebhookConfig {
        url: "https://hooks.example.org/in".parse()?,
        feeds: None,
        secret: None,
        retry_after: std::time::Duration::from_secs(60),
        max_attempts: 3,
        skip_duplicates: false,
    };
    store.sync_webhooks(std::slice::from_ref(&hook)).await?;
    store.insert_article(&article(feed_id, 1)).await?;
    assert_eq!(store.due_deliveries(10).await?.len(), 1);

    store.sync_webhooks(&[]).await?;
    assert!(store.due_deliveries(10).await?.is_empty(), "removed: waits");
    let month_ago = Utc::now() - Duration::days(30);
    assert_eq!(store.forget_removed_webhooks(month_ago).await?, 0);
    store.sync_webhooks(std::slice::from_ref(&hook)).await?;
    assert_eq!(
        store.due_deliveries(10).await?.len(),
        1,
        "configured again: resumes"
    );

    store.sync_webhooks(&[]).await?;
    // Removed since before the cutoff: the cutoff is a day from now.
    let forgotten = store
        .forget_removed_webhooks(Utc::now() + Duration::days(1))
        .await?;
    assert_eq!(forgotten, 1);
    store.sync_webhooks(std::slice::from_ref(&hook)).await?;
    assert!(
        store.due_deliveries(10).await?.is_empty(),
        "forgotten with its deliveries"
    );
    Ok(())
}

/// A database that refuses to remember a feed's entries (a full disk) shows in the write
/// health as failing `entries` writes, and recovers with the next write that succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_entry_writes_show_in_the_write_health() -> anyhow::Result<()> {
    use gleaner::store::{NewEntry, SizeCap, WriteKind};
    let db = common::TestDb::sqlite().await?;
    let store = &db.store;
    let feed_id = one_feed(store).await?;
    let entries: Vec<NewEntry> = (0..200)
        .map(|n| NewEntry {
            guid: None,
            url: format!("https://example.org/{n}"),
            title: format!("Entry {n}"),
            author: None,
            summary: Some("A summary that takes room. ".repeat(200)),
            content: None,
            published_at: None,
            enclosures: Vec::new(),
            tags: Vec::new(),
        })
        .collect();
    store.cap_sqlite_size(SizeCap::AtCurrentSize).await?;
    let refused = store.remember_entries(feed_id, &entries, Utc::now()).await;
    assert!(refused.is_err(), "{refused:?}");
    let failing = store.failing_writes();
    assert!(
        failing
            .iter()
            .any(|write| write.write == WriteKind::Entries),
        "{failing:?}"
    );
    store.cap_sqlite_size(SizeCap::Lifted).await?;
    store
        .remember_entries(feed_id, &entries, Utc::now())
        .await?;
    assert!(
        !store
            .failing_writes()
            .iter()
            .any(|write| write.write == WriteKind::Entries)
    );
    Ok(())
}
