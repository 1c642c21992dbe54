//! Near-duplicate articles: the same story from several feeds clusters under one
//! representative whatever its URL, distinct stories on the same topic do not, and consumers
//! choose (`duplicate_of` in records and listings, cluster sizes, claims and webhooks that
//! skip copies). A copier that publishes first does not become the story's representative
//! over a trusted feed, never hides a feed's stories from a webhook limited to that feed, and
//! leaves nothing pointing at its articles once purged. Both databases.

use crate::api_support;
use crate::common;

use anyhow::Context as _;
use chrono::{DateTime, Duration, Utc};
use common::farm::{self, Farm, Item};
use common::{TestConfig, TestDb};
use gleaner::config::WebhookConfig;
use gleaner::store::claims::ClaimFilter;
use gleaner::store::{ArticleFilter, ArticleMetadata, NewArticle, PageFields, Store, Verdict};
use serde_json::json;

on_both_databases!(
    copies_of_a_story_point_at_its_first_article_and_other_stories_do_not,
    consumers_take_one_article_per_cluster_when_they_ask,
    a_copy_outside_the_window_starts_a_cluster_of_its_own,
    reextraction_gives_a_new_text_to_compare_with_and_keeps_the_cluster,
    two_sites_printing_one_story_are_stored_as_one_cluster_and_posted_once,
    a_copier_publishing_first_does_not_hide_the_stories_it_copies,
    pruning_a_representative_re_points_its_cluster,
);

/// A wire story, as an agency sent it.
const WIRE_STORY: &str = "The city council approved a budget of 412 million for the coming \
    year on Tuesday evening after a debate that lasted more than six hours. The plan raises \
    spending on public transport by a fifth and pays for two new libraries in the northern \
    districts, while property taxes stay where they were last year. Members of the opposition \
    said the transport money would mostly go to projects that had already been promised \
    before the last election and accused the mayor of moving costs into later years. The \
    mayor answered that every line of the budget had been checked by the city's auditors and \
    that the libraries would open before the end of next year. Street lighting, the harbour \
    bridge repairs and a new shelter for the homeless are also funded. A vote on the water \
    rates was postponed until the spring, when a report on the state of the pipes is due. \
    The budget passed by twenty-nine votes to twenty-two, with two members absent.";

/// Another story on the same topic, told by another reporter: it must not merge.
const OTHER_STORY: &str = "Residents who packed the public gallery of the council chamber on \
    Tuesday were mostly there for one item: the water rates. Several of them held signs \
    asking for the pipes in the old town to be replaced before any increase. When the \
    council decided to postpone that vote until spring, some applauded and others left in \
    protest. A retired engineer who spoke during the public session said leaks in her street \
    had been reported for three winters in a row without any repair. The council's finance \
    chair said a report on the network would be published in March and that no rise would \
    be voted before residents could read it. Earlier in the evening, the council spent most \
    of its time on the budget, which includes new libraries and more buses. Local business \
    owners asked for the harbour bridge works to be done at night to keep the road open \
    during the day, a request the mayor promised to consider.";

/// The story as another site printed it: a dateline, its own boilerplate, the last
/// sentence cut.
fn copy_of_the_wire_story(dateline: &str) -> String {
    let cut = WIRE_STORY
        .rsplit_once(". The budget passed")
        .map_or(WIRE_STORY, |(kept, _)| kept);
    format!("{dateline} - {cut}. Sign up for our morning newsletter.")
}

async fn feeds(store: &Store) -> anyhow::Result<(i64, i64)> {
    let schedule = gleaner::schedule::CronSchedule::parse("*/30 * * * *")?;
    let feeds = store
        .sync_feeds(&[
            gleaner::config::FeedConfig::new(
                "agency",
                "http://agency.example/feed.xml".parse()?,
                schedule.clone(),
            ),
            gleaner::config::FeedConfig::new(
                "paper",
                "http://paper.example/feed.xml".parse()?,
                schedule,
            ),
        ])
        .await?;
    Ok((feeds[0].id, feeds[1].id))
}

fn article(feed_id: i64, slug: &str, text: &str, fetched_at: DateTime<Utc>) -> NewArticle {
    NewArticle {
        feed_id,
        guid: None,
        url: format!("http://site.example/{feed_id}/{slug}?utm_source=feed"),
        canonical_url: None,
        title: format!("Story {slug}"),
        author: None,
        summary: None,
        published_at: None,
        fetched_at,
        language: Some("en".into()),
        extractor: "cuter".into(),
        confidence: 0.8,
        verdict: Verdict::Article,
        quality: 0.9,
        text: text.to_string(),
        html: format!("<p>{text}</p>"),
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

/// Stores `text` as a new article of `feed_id`; its id.
async fn store_text(store: &Store, feed_id: i64, slug: &str, text: &str) -> anyhow::Result<i64> {
    let stored = store
        .insert_article(&article(feed_id, slug, text, Utc::now()))
        .await?;
    Ok(stored.id())
}

async fn copies_of_a_story_point_at_its_first_article_and_other_stories_do_not(
    db: TestDb,
) -> anyhow::Result<()> {
    let store = &db.store;
    let (agency, paper) = feeds(store).await?;
    let first = store_text(store, agency, "budget", WIRE_STORY).await?;
    let other = store_text(store, paper, "water", OTHER_STORY).await?;
    let copy = store_text(
        store,
        paper,
        "council-budget",
        &copy_of_the_wire_story("OSLO"),
    )
    .await?;
    let second_copy = store_text(
        store,
        agency,
        "budget-update",
        &copy_of_the_wire_story("OSLO (Wire)"),
    )
    .await?;
    let short = store_text(store, paper, "brief", "Budget approved.").await?;

    let duplicate_of = |id: i64| async move {
        let article = store.article(id).await?.context("stored")?;
        anyhow::Ok(article.duplicate_of)
    };
    assert_eq!(
        duplicate_of(first).await?,
        None,
        "the first points at nothing"
    );
    assert_eq!(duplicate_of(copy).await?, Some(first));
    assert_eq!(
        duplicate_of(second_copy).await?,
        Some(first),
        "every member points at the first, not at the copy it resembles most"
    );
    assert_eq!(
        duplicate_of(other).await?,
        None,
        "same topic, another story"
    );
    assert_eq!(duplicate_of(short).await?, None, "too short to tell");
    assert_eq!(
        store.cluster_members(first).await?,
        [first, copy, second_copy]
    );

    let listed = store
        .list_articles(&ArticleFilter {
            limit: 10,
            ..Default::default()
        })
        .await?;
    let size_of = |id: i64| listed.iter().find(|a| a.id == id).map(|a| a.cluster_size);
    assert_eq!(size_of(first), Some(3));
    assert_eq!(size_of(copy), Some(3));
    assert_eq!(size_of(other), Some(1));

    let record = store.article_record(copy).await?.context("stored")?;
    assert_eq!(serde_json::to_value(&record)?["duplicate_of"], json!(first));
    assert!(
        record
            .to_markdown()
            .contains(&format!("duplicate_of: {first}\n"))
    );
    let record = store.article_record(first).await?.context("stored")?;
    assert_eq!(serde_json::to_value(&record)?["duplicate_of"], json!(null));

    let app = api_support::App::spawn(store, None).await?;
    let (status, body) = app.get_json("/articles?limit=10").await?;
    assert_eq!(status, 200, "{body}");
    let rows = body["articles"].as_array().context("articles")?;
    let row = rows
        .iter()
        .find(|a| a["id"] == json!(copy))
        .context("listed")?;
    assert_eq!(row["duplicate_of"], json!(first), "{row}");
    assert_eq!(row["cluster_size"], json!(3), "{row}");
    Ok(())
}

async fn consumers_take_one_article_per_cluster_when_they_ask(db: TestDb) -> anyhow::Result<()> {
    let store = &db.store;
    let (agency, paper) = feeds(store).await?;
    let webhook = |url: &str, skip_duplicates| -> anyhow::Result<WebhookConfig> {
        Ok(WebhookConfig {
            url: url.parse()?,
            feeds: None,
            secret: None,
            retry_after: std::time::Duration::from_secs(60),
            max_attempts: 3,
            skip_duplicates,
        })
    };
    store
        .sync_webhooks(&[
            webhook("http://127.0.0.1:9/every", false)?,
            webhook("http://127.0.0.1:9/once", true)?,
        ])
        .await?;
    let first = store_text(store, agency, "budget", WIRE_STORY).await?;
    let copy = store_text(
        store,
        paper,
        "council-budget",
        &copy_of_the_wire_story("OSLO"),
    )
    .await?;
    let other = store_text(store, paper, "water", OTHER_STORY).await?;

    let every = webhook("http://127.0.0.1:9/every", false)?.key();
    let mut delivered: Vec<(bool, i64)> = store
        .deliveries()
        .await?
        .into_iter()
        .map(|d| (d.webhook_key == every, d.article_id))
        .collect();
    delivered.sort_unstable();
    assert_eq!(
        delivered,
        [
            (false, first),
            (false, other),
            (true, first),
            (true, copy),
            (true, other)
        ],
        "the receiver that skips duplicates gets no copy"
    );

    let lease = Duration::seconds(600);
    let claimed = |consumer: &'static str, skip_duplicates| async move {
        let filter = ClaimFilter {
            min_quality: None,
            skip_duplicates,
            page_types: None,
        };
        let claims = store.claim(consumer, 10, lease, filter).await?;
        anyhow::Ok(claims.into_iter().map(|c| c.article.id).collect::<Vec<_>>())
    };
    assert_eq!(claimed("digest", true).await?, [first, other]);
    assert_eq!(claimed("indexer", false).await?, [first, copy, other]);

    let app = api_support::App::spawn(store, None).await?;
    let (status, body) = app
        .post_json(
            "/claims",
            &json!({"consumer": "summarizer", "skip_duplicates": true}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let ids: Vec<i64> = body["claims"]
        .as_array()
        .context("claims")?
        .iter()
        .filter_map(|c| c["article"]["id"].as_i64())
        .collect();
    assert_eq!(ids, [first, other]);
    let (status, body) = app
        .post_json(
            "/claims",
            &json!({"consumer": "s", "skip_duplicates": "yes"}),
        )
        .await?;
    assert_eq!(status, 400, "{body}");
    Ok(())
}

async fn a_copy_outside_the_window_starts_a_cluster_of_its_own(db: TestDb) -> anyhow::Result<()> {
    let store = &db.store;
    let (agency, paper) = feeds(store).await?;
    let long_ago = Utc::now() - gleaner::store::DUPLICATE_WINDOW - Duration::days(1);
    let old = store
        .insert_article(&article(agency, "budget", WIRE_STORY, long_ago))
        .await?
        .id();
    let told_again = store_text(store, paper, "budget", &copy_of_the_wire_story("OSLO")).await?;
    let stored = store.article(told_again).await?.context("stored")?;
    assert_eq!(stored.duplicate_of, None, "{old} is outside the window");
    Ok(())
}

async fn reextraction_gives_a_new_text_to_compare_with_and_keeps_the_cluster(
    db: TestDb,
) -> anyhow::Result<()> {
    let store = &db.store;
    let (agency, paper) = feeds(store).await?;
    let first = store_text(store, agency, "water", OTHER_STORY).await?;
    let copy = store_text(store, paper, "water", OTHER_STORY).await?;
    // Re-extracted, the first article's text becomes the wire story: a copy of that one
    // now joins it, and the earlier copy keeps its cluster.
    let stored = store.article(first).await?.context("stored")?;
    let fields = PageFields {
        extractor: stored.extractor,
        confidence: stored.confidence,
        verdict: Verdict::Article,
        quality: 0.9,
        language: stored.language,
        text: WIRE_STORY.to_string(),
        html: format!("<p>{WIRE_STORY}</p>"),
        author: None,
        published_at: None,
        metadata: ArticleMetadata::default(),
        images: Vec::new(),
        page_type: Default::default(),
        posts: Vec::new(),
    };
    assert!(store.replace_extraction(first, &fields).await?);
    let late = store_text(store, paper, "budget", &copy_of_the_wire_story("OSLO")).await?;
    assert_eq!(
        store.article(late).await?.context("stored")?.duplicate_of,
        Some(first)
    );
    assert_eq!(
        store.article(copy).await?.context("stored")?.duplicate_of,
        Some(first)
    );
    Ok(())
}

/// The wire story's sentences as paragraphs, two by two.
fn wire_paragraphs() -> Vec<String> {
    let sentences: Vec<&str> = WIRE_STORY.split_inclusive(". ").collect();
    sentences.chunks(2).map(|pair| pair.concat()).collect()
}

/// The story as a paper's site prints it: its own chrome, a dateline, a related-stories box,
/// the last paragraph cut.
fn paper_page(paragraphs: &[String]) -> String {
    let kept = &paragraphs[..paragraphs.len() - 1];
    let body: String = kept.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Council passes budget - The Paper</title></head>\
         <body><div class=\"top-bar\"><a href=\"/\">The Paper</a> <a href=\"/subscribe\">Subscribe</a></div>\
         <div class=\"story\"><h1>Council passes budget</h1><p class=\"dateline\">OSLO (Wire)</p>{body}\
         <div class=\"related\"><h4>Related</h4><a href=\"/r1\">Transport plans</a> <a href=\"/r2\">Library opens</a></div></div>\
         <div class=\"footer\">The Paper, all rights reserved.</div></body></html>"
    )
}

async fn two_sites_printing_one_story_are_stored_as_one_cluster_and_posted_once(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let paragraphs = wire_paragraphs();
    farm.html(
        "/agency/budget.html",
        &farm::article_page("Council approves budget", &paragraphs, None),
    );
    farm.html("/paper/council-budget.html", &paper_page(&paragraphs));
    let feed = |path: &str, url: String, title: &str| {
        let item = Item {
            guid: format!("{path}-1"),
            url,
            title: title.to_string(),
        };
        farm.route(
            path,
            farm::ok("application/rss+xml", farm::rss(&[item]).into()),
        );
        farm.url(path)
    };
    let agency = feed(
        "/agency.xml",
        farm.url("/agency/budget.html"),
        "Council approves budget",
    );
    let paper = feed(
        "/paper.xml",
        farm.url("/paper/council-budget.html?utm_source=rss&utm_medium=feed"),
        "Council passes budget",
    );
    farm.route("/every", farm::ok("text/plain", b"ok".to_vec()));
    farm.route("/once", farm::ok("text/plain", b"ok".to_vec()));
    let config = TestConfig::new(&db)
        .loopback_farm()
        .feed("agency", agency)
        .feed("paper", paper)
        .table_array(
            "webhooks",
            &[("url", toml::Value::from(farm.url("/every")))],
        )
        .table_array(
            "webhooks",
            &[
                ("url", toml::Value::from(farm.url("/once"))),
                ("skip_duplicates", toml::Value::from(true)),
            ],
        );
    let ctx = gleaner::daemon::prepare(config.parse()?).await?;
    let cancel = tokio_util::sync::CancellationToken::new();
    gleaner::daemon::poll_once(&ctx, true, &cancel, |_| {}, |_| {}).await?;
    let targets = gleaner::webhooks::Targets::new(&ctx.config.webhooks, &ctx.fetcher);
    let wait = std::time::Duration::from_secs(20);
    gleaner::webhooks::deliver_pending(&ctx.store, &targets, wait).await?;

    let stored = common::distinct_articles(&ctx.store).await?;
    assert_eq!(stored.len(), 2, "{stored:?}");
    let (first, copy) = match (stored[0].duplicate_of, stored[1].duplicate_of) {
        (Some(first), None) => (first, stored[0].id),
        (None, Some(first)) => (first, stored[1].id),
        other => anyhow::bail!("one copy of the other expected, got {other:?}"),
    };
    assert!(stored.iter().any(|a| a.id == first));
    assert!(stored.iter().all(|a| a.cluster_size == 2), "{stored:?}");

    let bodies = |path: &str| -> anyhow::Result<Vec<serde_json::Value>> {
        let received = farm.received(path);
        received
            .iter()
            .map(|r| Ok(serde_json::from_slice(&r.body)?))
            .collect()
    };
    let once = bodies("/once")?;
    assert_eq!(once.len(), 1, "one story, posted once");
    assert_eq!(once[0]["id"], json!(first));
    let every = bodies("/every")?;
    assert_eq!(every.len(), 2);
    let posted_copy = every
        .iter()
        .find(|body| body["id"] == json!(copy))
        .context("the copy posted")?;
    assert_eq!(posted_copy["duplicate_of"], json!(first));
    Ok(())
}

/// A feed that copies stories and adds its own line.
fn spammed(text: &str) -> String {
    format!("{text} Cheap watches and pills at spam.example, order today.")
}

/// Every stored article's `duplicate_of` names a stored article.
async fn no_dangling_representatives(store: &Store) -> anyhow::Result<()> {
    let listed = store
        .list_articles(&ArticleFilter {
            limit: 100,
            ..Default::default()
        })
        .await?;
    let ids: Vec<i64> = listed.iter().map(|a| a.id).collect();
    for article in &listed {
        if let Some(representative) = article.duplicate_of {
            assert!(
                ids.contains(&representative),
                "{} points at deleted {representative}",
                article.id
            );
        }
    }
    Ok(())
}

async fn a_copier_publishing_first_does_not_hide_the_stories_it_copies(
    db: TestDb,
) -> anyhow::Result<()> {
    let store = &db.store;
    let schedule = gleaner::schedule::CronSchedule::parse("*/30 * * * *")?;
    let feed = |name: &str, trusted: bool| -> anyhow::Result<gleaner::config::FeedConfig> {
        let url = format!("http://{name}.example/feed.xml").parse()?;
        let mut feed = gleaner::config::FeedConfig::new(name, url, schedule.clone());
        feed.trusted = trusted;
        Ok(feed)
    };
    let feeds = store
        .sync_feeds(&[
            feed("copier", false)?,
            feed("agency", true)?,
            feed("paper", false)?,
        ])
        .await?;
    let id_of = |name: &str| feeds.iter().find(|f| f.name == name).map_or(0, |f| f.id);
    let webhook = |path: &str, feeds: Option<Vec<String>>| -> anyhow::Result<WebhookConfig> {
        Ok(WebhookConfig {
            url: format!("http://127.0.0.1:9/{path}").parse()?,
            feeds,
            secret: None,
            retry_after: std::time::Duration::from_secs(60),
            max_attempts: 3,
            skip_duplicates: true,
        })
    };
    let once = webhook("once", None)?;
    let paper_once = webhook("paper-once", Some(vec!["paper".to_string()]))?;
    store
        .sync_webhooks(&[once.clone(), paper_once.clone()])
        .await?;

    // The copier stores both stories first, each with its spam line.
    let copied_wire = store_text(store, id_of("copier"), "a", &spammed(WIRE_STORY)).await?;
    let copied_other = store_text(store, id_of("copier"), "b", &spammed(OTHER_STORY)).await?;
    let wire = store_text(store, id_of("agency"), "budget", WIRE_STORY).await?;
    let other = store_text(store, id_of("paper"), "water", OTHER_STORY).await?;

    let duplicate_of = |id: i64| async move {
        let article = store.article(id).await?.context("stored")?;
        anyhow::Ok(article.duplicate_of)
    };
    // The trusted feed's story represents its cluster; the copy points at it.
    assert_eq!(duplicate_of(wire).await?, None);
    assert_eq!(duplicate_of(copied_wire).await?, Some(wire));
    // An untrusted feed's story arrived second: the copy stays first.
    assert_eq!(duplicate_of(other).await?, Some(copied_other));

    let delivered = |key: String| async move {
        let mut ids: Vec<i64> = store
            .deliveries()
            .await?
            .into_iter()
            .filter(|d| d.webhook_key == key)
            .map(|d| d.article_id)
            .collect();
        ids.sort_unstable();
        anyhow::Ok(ids)
    };
    // The webhook limited to `paper` gets paper's story, although it repeats a copy.
    assert_eq!(delivered(paper_once.key()).await?, [other]);
    assert!(delivered(once.key()).await?.contains(&wire));
    let filter = ClaimFilter {
        min_quality: None,
        skip_duplicates: true,
        page_types: None,
    };
    let claimed = |consumer: &'static str| {
        let filter = filter.clone();
        async move {
            let claims = store
                .claim(consumer, 10, Duration::seconds(600), filter)
                .await?;
            anyhow::Ok(claims.into_iter().map(|c| c.article.id).collect::<Vec<_>>())
        }
    };
    assert_eq!(claimed("digest").await?, [copied_other, wire]);

    // The copier purged: its clusters get new representatives, nothing names its articles,
    // and the receiver that skips copies now gets the story it skipped.
    store.purge_feed("copier").await?.context("purged")?;
    assert_eq!(duplicate_of(wire).await?, None);
    assert_eq!(duplicate_of(other).await?, None);
    no_dangling_representatives(store).await?;
    assert_eq!(delivered(once.key()).await?, [wire, other]);
    assert_eq!(claimed("indexer").await?, [wire, other]);
    Ok(())
}

async fn pruning_a_representative_re_points_its_cluster(db: TestDb) -> anyhow::Result<()> {
    let store = &db.store;
    let (agency, paper) = feeds(store).await?;
    let now = Utc::now();
    let days_ago = |days: i64| now - Duration::days(days);
    let first = store
        .insert_article(&article(agency, "budget", WIRE_STORY, days_ago(3)))
        .await?
        .id();
    let copies = [
        store_text(store, paper, "a", &copy_of_the_wire_story("OSLO")).await?,
        store_text(store, agency, "b", &copy_of_the_wire_story("OSLO (Wire)")).await?,
    ];
    for copy in copies {
        let stored = store.article(copy).await?.context("stored")?;
        assert_eq!(stored.duplicate_of, Some(first));
    }
    let pruned = store.prune(days_ago(2), false).await?;
    assert_eq!(pruned.articles, 1);
    assert!(store.article(first).await?.is_none());
    let representative = store.article(copies[0]).await?.context("kept")?;
    assert_eq!(representative.duplicate_of, None);
    let member = store.article(copies[1]).await?.context("kept")?;
    assert_eq!(member.duplicate_of, Some(copies[0]));
    assert_eq!(store.cluster_members(copies[0]).await?, copies);
    no_dangling_representatives(store).await?;
    Ok(())
}
