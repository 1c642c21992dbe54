//! The HTTP API against a real server on 127.0.0.1 port 0, on a fresh SQLite file and a fresh
//! PostgreSQL schema: every route's answers, its refusals, and the claims work queue under
//! concurrent workers.

use crate::api_support;
use crate::common;

use anyhow::Context as _;
use api_support::claims::*;
use api_support::limits::{
    self, a_body_too_slow_is_answered_408, stalled_bodies_hold_no_database_slot,
};
use api_support::{App, DENSE_WORDS, IMAGE_MIME, dense_article, seed, seed_dense};
use chrono::{DateTime, Utc};
use common::TestDb;
use gleaner::store::testing::StoreTesting as _;
use serde_json::{Value, json};

on_both_databases!(
    feeds_list_with_polling_state_and_counts,
    cursor_pagination_resumes_exactly,
    listings_filter_by_feed_and_time,
    since_is_an_age_a_date_or_a_time,
    an_article_as_json_text_and_html,
    images_are_served_with_their_content_type,
    search_finds_a_word_only_in_the_body,
    bad_input_is_a_json_error,
    request_bodies_are_limited_and_must_be_json,
    the_token_guards_all_but_health_and_metrics,
    without_a_token_every_route_answers_only_to_its_own_host_names,
    a_client_guessing_the_token_is_locked_out,
    metrics_expose_counters_gauges_and_queue_depth,
    concurrent_claimers_never_share_an_article,
    consumers_claim_side_by_side,
    an_expired_lease_is_claimed_again,
    done_results_are_kept_per_consumer,
    claims_refuse_what_is_not_held,
    health_follows_the_database_and_shutdown_is_graceful,
    heavy_searches_are_bounded_and_never_starve_the_service,
    a_search_beyond_its_time_budget_stops,
    abandoned_searches_leave_the_pool_healthy,
    stalled_bodies_hold_no_database_slot,
    a_body_too_slow_is_answered_408,
    markdown_answers_carry_no_markup_of_the_article,
    listings_are_bounded_in_size_and_resume_by_cursor,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_its_deadline_is_answered_503() -> anyhow::Result<()> {
    limits::a_request_past_its_deadline_is_answered_503().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed() -> anyhow::Result<()> {
    limits::idle_connections_are_closed().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_wait_their_turn() -> anyhow::Result<()> {
    limits::connections_beyond_the_cap_wait_their_turn().await
}

fn ids_of(list: &Value, key: &str) -> anyhow::Result<Vec<i64>> {
    list[key]
        .as_array()
        .with_context(|| format!("{key} array in {list}"))?
        .iter()
        .map(|item| item["id"].as_i64().context("id"))
        .collect()
}

async fn feeds_list_with_polling_state_and_counts(db: TestDb) -> anyhow::Result<()> {
    seed(&db.store, 5).await?;
    let app = App::spawn(&db.store, None).await?;
    let (status, body) = app.get_json("/feeds").await?;
    assert_eq!(status, 200, "{body}");
    let feeds = body["feeds"].as_array().context("feeds")?;
    assert_eq!(feeds.len(), 2);
    assert_eq!(feeds[0]["name"], "alpha");
    assert_eq!(feeds[0]["articles"], 3);
    assert_eq!(feeds[1]["name"], "beta");
    assert_eq!(feeds[1]["articles"], 2);
    for field in ["active", "next_due_at", "last_status", "error_count", "url"] {
        assert!(feeds[0].get(field).is_some(), "{field} in {}", feeds[0]);
    }
    app.stop().await
}

async fn cursor_pagination_resumes_exactly(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 7).await?;
    let app = App::spawn(&db.store, None).await?;
    let mut seen: Vec<i64> = Vec::new();
    let mut after_id = 0;
    for page in 0.. {
        anyhow::ensure!(page < 10, "pagination does not end");
        let (status, body) = app
            .get_json(&format!("/articles?after_id={after_id}&limit=3"))
            .await?;
        assert_eq!(status, 200, "{body}");
        let ids = ids_of(&body, "articles")?;
        seen.extend(&ids);
        let next = body["next_after_id"].as_i64().context("next_after_id")?;
        if let Some(last) = ids.last() {
            assert_eq!(next, *last);
        } else {
            assert_eq!(next, after_id, "an empty page keeps the cursor");
        }
        after_id = next;
        if body["more"] == false {
            break;
        }
    }
    assert_eq!(seen, seeded.ids, "every article once, ascending");
    // A page from the middle resumes right after the cursor.
    let (_, body) = app
        .get_json(&format!("/articles?after_id={}&limit=2", seeded.ids[2]))
        .await?;
    assert_eq!(ids_of(&body, "articles")?, seeded.ids[3..5].to_vec());
    assert_eq!(body["more"], true);
    // Past the end: empty, and the cursor stays.
    let last = seeded.ids[6];
    let (_, body) = app.get_json(&format!("/articles?after_id={last}")).await?;
    assert_eq!(ids_of(&body, "articles")?, Vec::<i64>::new());
    assert_eq!(body["next_after_id"], last);
    assert_eq!(body["more"], false);
    app.stop().await
}

/// Rows of megabytes (titles and authors stored before the feed's fields were bounded, or
/// taken from pages): a listing row carries a cut title and author, a page ends before
/// [`gleaner::store::LISTING_BUDGET_BYTES`] with `more` and its cursor, and the cursor reads
/// every article once.
async fn listings_are_bounded_in_size_and_resume_by_cursor(db: TestDb) -> anyhow::Result<()> {
    use gleaner::store::{LISTED_AUTHOR_CHARS, LISTED_TITLE_CHARS, LISTING_BUDGET_BYTES};
    let seeded = seed(&db.store, 1).await?;
    let feed_id = db.store.feeds().await?[0].id;
    let mut ids = seeded.ids.clone();
    for n in 0..120 {
        let mut article = dense_article(feed_id, 10_000 + n);
        article.title = format!("{n} {}", "𝕏".repeat(20_000));
        article.author = Some("Ä".repeat(10_000));
        article.url = format!("https://big.example/{n}/{}", "u".repeat(8_000));
        ids.push(db.store.insert_article(&article).await?.id());
    }
    let app = App::spawn(&db.store, None).await?;
    let mut seen: Vec<i64> = Vec::new();
    let mut after_id = 0;
    for page in 0.. {
        anyhow::ensure!(page < 20, "pagination does not end");
        let response = app
            .get(&format!("/articles?after_id={after_id}&limit=500"))
            .await?;
        assert_eq!(response.status(), 200);
        let bytes = response.bytes().await?;
        assert!(
            bytes.len() <= LISTING_BUDGET_BYTES + 4096,
            "a page of {} bytes",
            bytes.len()
        );
        let body: Value = serde_json::from_slice(&bytes)?;
        for row in body["articles"].as_array().context("articles")? {
            let title = row["title"].as_str().unwrap_or_default();
            assert!(
                title.chars().count() <= LISTED_TITLE_CHARS,
                "{}",
                title.len()
            );
            let author = row["author"].as_str().unwrap_or_default();
            assert!(
                author.chars().count() <= LISTED_AUTHOR_CHARS,
                "{}",
                author.len()
            );
        }
        let page_ids = ids_of(&body, "articles")?;
        if page == 0 {
            assert_eq!(body["more"], true, "the first page ends early");
            assert!(page_ids.len() < ids.len());
        }
        seen.extend(&page_ids);
        after_id = body["next_after_id"].as_i64().context("next_after_id")?;
        if body["more"] == false {
            break;
        }
    }
    assert_eq!(seen, ids, "every article once, ascending");
    let (status, hits) = app.get_json("/search?q=amber&limit=500").await?;
    assert_eq!(status, 200, "{hits}");
    assert!(
        hits["hits"].as_array().is_some_and(|hits| !hits.is_empty()
            && hits.iter().all(|hit| hit["title"]
                .as_str()
                .is_some_and(|t| t.chars().count() <= LISTED_TITLE_CHARS))),
        "search hits carry cut titles"
    );
    app.stop().await
}

async fn listings_filter_by_feed_and_time(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 6).await?;
    let app = App::spawn(&db.store, None).await?;
    let (status, body) = app.get_json("/articles?feed=beta").await?;
    assert_eq!(status, 200, "{body}");
    let beta: Vec<i64> = seeded.ids.iter().copied().skip(1).step_by(2).collect();
    assert_eq!(ids_of(&body, "articles")?, beta);
    assert_eq!(body["articles"][0]["feed"], "beta");
    let (_, body) = app.get_json("/articles?since=2000-01-01T00:00:00Z").await?;
    assert_eq!(ids_of(&body, "articles")?, seeded.ids);
    let (_, body) = app
        .get_json("/articles?since=2999-01-01T00:00:00+02:00")
        .await?;
    assert_eq!(ids_of(&body, "articles")?, Vec::<i64>::new());
    let (status, body) = app.get_json("/articles?feed=gamma").await?;
    assert_eq!(status, 404, "{body}");
    assert!(body["error"].as_str().unwrap_or("").contains("gamma"));
    app.stop().await
}

/// `since` reads as `--since` and the MCP tools read it: an age back from now, a date
/// meaning its midnight UTC, or an RFC 3339 time; anything else is a 400 naming the three.
async fn since_is_an_age_a_date_or_a_time(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 2).await?;
    let alpha = db
        .store
        .feed_by_name("alpha")
        .await?
        .context("feed alpha")?;
    let fetched_at = |at: &str| -> anyhow::Result<_> { Ok(at.parse::<DateTime<Utc>>()?) };
    let mut before_the_date = dense_article(alpha.id, 0);
    before_the_date.fetched_at = fetched_at("2025-12-31T23:59:59Z")?;
    let before_the_date = db.store.insert_article(&before_the_date).await?.id();
    let mut at_midnight = dense_article(alpha.id, 1);
    at_midnight.fetched_at = fetched_at("2026-01-01T00:00:00Z")?;
    let at_midnight = db.store.insert_article(&at_midnight).await?.id();
    let app = App::spawn(&db.store, None).await?;

    let (status, body) = app.get_json("/articles?since=24h").await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids_of(&body, "articles")?, seeded.ids, "the last day's");
    let (status, body) = app.get_json("/articles?since=2026-01-01").await?;
    assert_eq!(status, 200, "{body}");
    let mut from_the_date = seeded.ids.clone();
    from_the_date.push(at_midnight);
    assert_eq!(
        ids_of(&body, "articles")?,
        from_the_date,
        "from its midnight"
    );
    let (_, body) = app.get_json("/articles?since=2025-12-31").await?;
    assert!(ids_of(&body, "articles")?.contains(&before_the_date));
    // An offset's `+` sent unencoded arrives as a space, and still reads.
    let (status, body) = app
        .get_json("/articles?since=2026-01-01T01:00:00+01:00")
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids_of(&body, "articles")?, from_the_date);

    for bad in ["yesterday", "7x", "0d", "2026-13-01"] {
        let (status, body) = app.get_json(&format!("/articles?since={bad}")).await?;
        assert_eq!(status, 400, "since={bad}: {body}");
        let message = body["error"].as_str().context("error message")?;
        for form in ["age", "24h", "YYYY-MM-DD", "RFC 3339"] {
            assert!(message.contains(form), "since={bad}: {message}");
        }
    }
    app.stop().await
}

async fn an_article_as_json_text_and_html(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 2).await?;
    let app = App::spawn(&db.store, None).await?;
    let id = seeded.ids[0];
    let (status, body) = app.get_json(&format!("/articles/{id}")).await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["id"], id);
    assert_eq!(body["feed"], "alpha");
    assert_eq!(body["title"], "Headline number 0");
    assert!(body["text"].as_str().unwrap_or("").contains("xylographer"));
    assert!(body["html"].as_str().unwrap_or("").starts_with("<p>"));
    let images = body["images"].as_array().context("images")?;
    assert_eq!(images.len(), 2);
    assert_eq!(images[0]["sha256"], seeded.image_sha256.as_str());
    assert_eq!(
        images[0]["href"],
        format!("/images/{}", seeded.image_sha256).as_str()
    );
    assert_eq!(images[1]["href"], Value::Null);

    let response = app.get(&format!("/articles/{id}?format=text")).await?;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/plain; charset=utf-8"
    );
    let text = response.text().await?;
    assert!(text.starts_with("The opening of story 0."), "{text}");
    assert!(!text.contains("<p>"));

    let response = app.get(&format!("/articles/{id}?format=html")).await?;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/html; charset=utf-8"
    );
    let html = response.text().await?;
    assert!(html.contains("<title>Headline number 0</title>"), "{html}");
    assert!(html.contains("<p>The opening of story 0.</p>"), "{html}");
    // The stored image is served from here; the one never downloaded keeps its address.
    let local = format!(
        "<img src=\"/images/{}\" alt=\"a figure\">",
        seeded.image_sha256
    );
    assert!(html.contains(&local), "{html}");
    assert!(!html.contains("https://news.example/img/a.webp"), "{html}");
    assert!(
        html.contains("src=\"https://news.example/img/b.png\""),
        "{html}"
    );

    let response = app.get(&format!("/articles/{id}?format=markdown")).await?;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/markdown; charset=utf-8"
    );
    let markdown = response.text().await?;
    // Front matter first (tests/extraction/markdown_front_matter.rs reads it), then the body.
    let body = markdown
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(_, body)| body.trim_start())
        .unwrap_or_default();
    assert!(body.starts_with("The opening of story 0."), "{markdown}");
    assert!(
        markdown.contains("![a figure](https://news.example/img/a.webp)"),
        "{markdown}"
    );

    let (status, body) = app.get_json(&format!("/articles/{id}?format=xml")).await?;
    assert_eq!(status, 400, "{body}");
    let (status, body) = app.get_json("/articles/999999").await?;
    assert_eq!(status, 404, "{body}");
    assert!(body["error"].as_str().is_some());
    for bad in ["abc", "-3", "0", "1.5", "99999999999999999999"] {
        let (status, body) = app.get_json(&format!("/articles/{bad}")).await?;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    app.stop().await
}

/// A stored body whose alt text, title and link smuggle markup: the Markdown answer writes
/// them as entities and drops the script address (tests/extraction/markdown_xss.rs renders a corpus).
async fn markdown_answers_carry_no_markup_of_the_article(db: TestDb) -> anyhow::Result<()> {
    seed_dense(&db.store, 1).await?;
    let feed_id = db.store.feeds().await?[0].id;
    let mut article = dense_article(feed_id, 1);
    article.html = "<p>Intro &lt;b&gt;.</p>\
        <img src=\"https://news.example/a.png\" alt=\"&lt;script&gt;alert(1)&lt;/script&gt;\" \
        title='x\\&quot; onclick=alert(1)'>\
        <p><a href=\" JavaScript:alert(1)\">click</a></p>"
        .to_string();
    let id = db.store.insert_article(&article).await?.id();
    let app = App::spawn(&db.store, None).await?;
    let response = app.get(&format!("/articles/{id}?format=markdown")).await?;
    assert_eq!(response.status(), 200);
    let markdown = response.text().await?;
    assert!(!markdown.contains('<'), "{markdown}");
    assert!(
        !markdown.to_ascii_lowercase().contains("javascript"),
        "{markdown}"
    );
    assert!(
        markdown.contains("![&lt;script&gt;alert(1)&lt;/script&gt;](https://news.example/a.png"),
        "{markdown}"
    );
    assert!(markdown.contains("Intro &lt;b&gt;."), "{markdown}");
    assert!(
        markdown.contains("\nclick"),
        "the link's text stays: {markdown}"
    );
    app.stop().await
}

async fn images_are_served_with_their_content_type(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 2).await?;
    let app = App::spawn(&db.store, None).await?;
    let (status, body) = app
        .get_json(&format!("/articles/{}/images", seeded.ids[0]))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["images"].as_array().map(Vec::len), Some(2));
    assert_eq!(body["images"][0]["mime"], IMAGE_MIME);
    assert_eq!(body["images"][0]["alt"], "a figure");
    let (_, body) = app
        .get_json(&format!("/articles/{}/images", seeded.ids[1]))
        .await?;
    assert_eq!(body["images"], json!([]));
    let (status, _) = app.get_json("/articles/424242/images").await?;
    assert_eq!(status, 404);

    let path = format!("/images/{}", seeded.image_sha256);
    let response = app.get(&path).await?;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], IMAGE_MIME);
    let cache = response.headers()["cache-control"].to_str()?.to_string();
    assert!(
        cache.contains("immutable") && cache.contains("max-age="),
        "{cache}"
    );
    let etag = response.headers()["etag"].clone();
    assert_eq!(response.bytes().await?.to_vec(), seeded.image_bytes);
    // Upper-case hex names the same image; a matching ETag needs no bytes.
    let response = app
        .get(&path.to_ascii_uppercase().replace("/IMAGES/", "/images/"))
        .await?;
    assert_eq!(response.status(), 200);
    let response = app
        .request(reqwest::Method::GET, &path)
        .header("if-none-match", etag)
        .send()
        .await?;
    assert_eq!(response.status(), 304);

    let (status, _) = app.get_json(&format!("/images/{}", "0".repeat(64))).await?;
    assert_eq!(status, 404);
    let (status, _) = app.get_json("/images/not-a-digest").await?;
    assert_eq!(status, 400);
    app.stop().await
}

async fn search_finds_a_word_only_in_the_body(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 4).await?;
    let app = App::spawn(&db.store, None).await?;
    let (status, body) = app.get_json("/search?q=xylographer").await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids_of(&body, "hits")?, vec![seeded.ids[0]]);
    assert!(
        body["hits"][0]["snippet"]
            .as_str()
            .unwrap_or("")
            .contains("xylographer")
    );
    let (_, body) = app.get_json("/search?q=marker2").await?;
    assert_eq!(ids_of(&body, "hits")?, vec![seeded.ids[2]]);
    let (_, body) = app.get_json("/search?q=opening&limit=2").await?;
    assert_eq!(ids_of(&body, "hits")?.len(), 2);
    let (_, body) = app.get_json("/search?q=nowhereword").await?;
    assert_eq!(body["hits"], json!([]));
    let (status, body) = app.get_json("/search?q=xylographer+OR+marker2").await?;
    assert_eq!(status, 200, "{body}");
    let mut either = ids_of(&body, "hits")?;
    either.sort_unstable();
    assert_eq!(either, vec![seeded.ids[0], seeded.ids[2]]);
    // A query that cannot be read is a 400 that says why, never zero hits.
    for (query, says) in [
        ("%22%28*", "quote"),
        ("opening+OR", "OR"),
        ("-opening", "excluded"),
        ("*", "*"),
    ] {
        let (status, body) = app.get_json(&format!("/search?q={query}")).await?;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|error| error.contains(says)),
            "{query}: {body}"
        );
    }
    let (status, body) = app.get_json("/search").await?;
    assert_eq!(status, 400, "{body}");
    let (status, _) = app.get_json("/search?q=opening&limit=501").await?;
    assert_eq!(status, 400);
    app.stop().await
}

async fn bad_input_is_a_json_error(db: TestDb) -> anyhow::Result<()> {
    seed(&db.store, 1).await?;
    let app = App::spawn(&db.store, None).await?;
    let cases = [
        ("/articles?after_id=abc", 400, "after_id"),
        ("/articles?after_id=-1", 400, "after_id"),
        ("/articles?limit=501", 400, "at most 500"),
        ("/articles?limit=0", 400, "limit"),
        ("/articles?limit=ten", 400, "limit"),
        ("/articles?since=yesterday", 400, "RFC 3339"),
        ("/claims/abc", 400, "article id"),
        ("/claims/1?consumer=bad%20name", 400, "consumer"),
        ("/claims/77777", 404, "77777"),
        ("/nowhere", 404, "route"),
    ];
    for (path, expected, fragment) in cases {
        let (status, body) = app.get_json(path).await?;
        assert_eq!(status, expected, "{path}: {body}");
        let message = body["error"].as_str().context("error message")?;
        assert!(message.contains(fragment), "{path}: {message}");
    }
    let (status, body) = app.get_json("/articles?limit=500").await?;
    assert_eq!(status, 200, "{body}");
    let response = app
        .request(reqwest::Method::DELETE, "/articles")
        .send()
        .await?;
    let (status, _) = api_support::json_of(response).await?;
    assert_eq!(status, 405);
    app.stop().await
}

async fn request_bodies_are_limited_and_must_be_json(db: TestDb) -> anyhow::Result<()> {
    seed(&db.store, 1).await?;
    let app = App::spawn(&db.store, None).await?;
    let post = |body: Vec<u8>, content_type: &'static str| {
        app.request(reqwest::Method::POST, "/claims")
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    let (status, body) =
        api_support::json_of(post(b"{\"consumer\": ".to_vec(), "application/json").await?).await?;
    assert_eq!(status, 400, "malformed JSON: {body}");
    assert!(body["error"].as_str().unwrap_or("").contains("JSON"));
    let (status, body) =
        api_support::json_of(post(b"{\"limit\": 1}".to_vec(), "application/json").await?).await?;
    assert_eq!(status, 400, "missing consumer: {body}");
    let (status, body) = api_support::json_of(
        post(
            br#"{"consumer": "s", "limt": 1}"#.to_vec(),
            "application/json",
        )
        .await?,
    )
    .await?;
    assert_eq!(status, 400, "unknown field: {body}");
    let (status, body) = api_support::json_of(
        post(
            br#"{"consumer": "s", "limit": 101}"#.to_vec(),
            "application/json",
        )
        .await?,
    )
    .await?;
    assert_eq!(status, 400, "claim limit: {body}");
    let (status, body) = api_support::json_of(
        post(
            br#"{"consumer": "s", "lease_seconds": 0}"#.to_vec(),
            "application/json",
        )
        .await?,
    )
    .await?;
    assert_eq!(status, 400, "lease: {body}");
    let (status, body) =
        api_support::json_of(post(br#"{"consumer": ""}"#.to_vec(), "application/json").await?)
            .await?;
    assert_eq!(status, 400, "empty consumer: {body}");
    let (status, body) =
        api_support::json_of(post(br#"{"consumer": "s"}"#.to_vec(), "text/plain").await?).await?;
    assert_eq!(status, 415, "not JSON: {body}");
    let mut huge = br#"{"consumer": "s", "result": ""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', 70 * 1024));
    huge.extend(br#""}"#);
    let (status, body) = api_support::json_of(post(huge, "application/json").await?).await?;
    assert_eq!(status, 413, "oversized: {body}");
    // The refusals claimed nothing.
    assert_eq!(app.claim("s", 10, 60).await?.len(), 1);
    app.stop().await
}

async fn the_token_guards_all_but_health_and_metrics(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 1).await?;
    let app = App::spawn(&db.store, Some("correct horse")).await?;
    let guarded = [
        "/feeds".to_string(),
        "/articles".to_string(),
        format!("/articles/{}", seeded.ids[0]),
        format!("/articles/{}/images", seeded.ids[0]),
        format!("/images/{}", seeded.image_sha256),
        "/search?q=opening".to_string(),
        format!("/claims/{}", seeded.ids[0]),
    ];
    for path in &guarded {
        let response = app.client.get(app.url(path)).send().await?;
        assert_eq!(
            response
                .headers()
                .get("www-authenticate")
                .map(|v| v.as_bytes()),
            Some(&b"Bearer"[..])
        );
        let (status, body) = api_support::json_of(response).await?;
        assert_eq!(status, 401, "{path} without a token: {body}");
        assert!(body["error"].as_str().is_some());
        let response = app
            .client
            .get(app.url(path))
            .bearer_auth("correct horse!")
            .send()
            .await?;
        assert_eq!(response.status(), 401, "{path} with a wrong token");
        let response = app.get(path).await?;
        assert_eq!(response.status(), 200, "{path} with the token");
    }
    let response = app
        .client
        .post(app.url("/claims"))
        .header("content-type", "application/json")
        .body(r#"{"consumer": "s"}"#)
        .send()
        .await?;
    assert_eq!(response.status(), 401);
    let response = app
        .client
        .post(app.url(&format!("/claims/{}/done", seeded.ids[0])))
        .header("content-type", "application/json")
        .body(r#"{"consumer": "s"}"#)
        .send()
        .await?;
    assert_eq!(response.status(), 401);
    for open in ["/healthz", "/metrics"] {
        let response = app.client.get(app.url(open)).send().await?;
        assert_eq!(response.status(), 200, "{open} is open");
    }
    app.stop().await
}

/// A DNS-rebinding page reaches the API under its own host name: without a token, no route
/// (JSON, web view, claims) answers it, while the listener's own names are served.
async fn without_a_token_every_route_answers_only_to_its_own_host_names(
    db: TestDb,
) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 1).await?;
    let app = App::spawn(&db.store, None).await?;
    let port = app
        .address()
        .rsplit(':')
        .next()
        .context("port")?
        .to_string();
    let routes = [
        "/feeds".to_string(),
        "/articles".to_string(),
        format!("/articles/{}", seeded.ids[0]),
        "/ui/".to_string(),
        "/ui/feeds".to_string(),
        "/healthz".to_string(),
    ];
    for path in &routes {
        for host in ["rebound.example", "rebound.example:80"] {
            let response = app
                .client
                .get(app.url(path))
                .header("host", host)
                .send()
                .await?;
            assert_eq!(response.status(), 403, "{path} for Host: {host}");
        }
        for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
            let response = app
                .client
                .get(app.url(path))
                .header("host", &host)
                .send()
                .await?;
            assert_eq!(response.status(), 200, "{path} for Host: {host}");
        }
    }
    let claim = app
        .client
        .post(app.url("/claims"))
        .header("host", "rebound.example")
        .header("content-type", "application/json")
        .body(r#"{"consumer": "rebinder"}"#)
        .send()
        .await?;
    assert_eq!(claim.status(), 403, "no claim for another host");
    let claimed = app.claim("owner", 10, 60).await?;
    assert_eq!(claimed.len(), 1, "the refused claim took nothing");
    app.stop().await
}

/// Wrong bearer tokens: after the free failures the client gets `429` with `Retry-After`,
/// even with the right token, until the wait is over; then the right token opens again.
async fn a_client_guessing_the_token_is_locked_out(db: TestDb) -> anyhow::Result<()> {
    seed(&db.store, 1).await?;
    let app = App::spawn(&db.store, Some("correct horse battery")).await?;
    let with = |token: &str| app.client.get(app.url("/feeds")).bearer_auth(token).send();
    let mut refused_at = None;
    for guess in 0..50 {
        let status = with(&format!("guess-{guess}")).await?.status();
        if status == 429 {
            refused_at = Some(guess);
            break;
        }
        assert_eq!(status, 401, "guess {guess}");
    }
    let refused_at = refused_at.context("guessing was never slowed down")?;
    assert!(
        refused_at <= gleaner::api::attempts::FREE_FAILURES as usize,
        "{refused_at}"
    );
    let locked = with("correct horse battery").await?;
    assert_eq!(locked.status(), 429, "locked out, whatever the token");
    let wait: u64 = locked.headers()["retry-after"].to_str()?.parse()?;
    assert!(wait >= 1, "{wait}");
    tokio::time::sleep(std::time::Duration::from_secs(wait)).await;
    assert_eq!(with("correct horse battery").await?.status(), 200);
    app.stop().await
}

async fn metrics_expose_counters_gauges_and_queue_depth(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 5).await?;
    gleaner::metrics::feed_polled("ok");
    gleaner::metrics::article_stored();
    gleaner::metrics::failure("page", "timeout");
    gleaner::metrics::fetch_finished("page", 0.2, 2048);
    gleaner::metrics::extraction_finished("cetr", 0.003, true);
    let app = App::spawn(&db.store, None).await?;
    let claimed = app.claim("summarizer", 3, 600).await?;
    let (first, lease) = claimed[0];
    let (status, body) = app
        .post_json(
            &format!("/claims/{first}/done"),
            &json!({"consumer": "summarizer", "lease": lease}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(seeded.ids.len(), 5);

    let response = app.client.get(app.url("/metrics")).send().await?;
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"].to_str()?.to_string();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let text = response.text().await?;
    for line in [
        "gleaner_database_up 1",
        "gleaner_articles 5",
        "gleaner_feeds{state=\"active\"} 2",
        "gleaner_feeds{state=\"inactive\"} 0",
        "gleaner_feeds_failing 0",
        "gleaner_claims_pending{consumer=\"summarizer\"} 4",
        "gleaner_claims_leased{consumer=\"summarizer\"} 2",
        "gleaner_claims_done{consumer=\"summarizer\"} 1",
        "# TYPE gleaner_fetch_duration_seconds histogram",
        "gleaner_fetch_duration_seconds_bucket{kind=\"page\",le=\"+Inf\"}",
        "gleaner_api_requests_total{route=\"/claims\",status=\"200\"}",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(line)),
            "{line} in:\n{text}"
        );
    }
    for counter in [
        "gleaner_feed_polls_total{status=\"ok\"}",
        "gleaner_articles_stored_total",
        "gleaner_failures_total{stage=\"page\",kind=\"timeout\"}",
        "gleaner_fetch_bytes_total{kind=\"page\"}",
        "gleaner_extraction_fallbacks_total{algorithm=\"cetr\"}",
    ] {
        let value = text
            .lines()
            .find_map(|l| l.strip_prefix(counter)?.trim().parse::<f64>().ok())
            .with_context(|| format!("{counter} in:\n{text}"))?;
        assert!(value >= 1.0, "{counter} = {value}");
    }
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        assert!(line.starts_with("gleaner_"), "{line}");
        let name = line.split(['{', ' ']).next().unwrap_or("");
        let family = name
            .trim_end_matches("_bucket")
            .trim_end_matches("_sum")
            .trim_end_matches("_count");
        assert!(
            text.contains(&format!("# HELP {family} ")),
            "HELP for {family}"
        );
    }
    app.stop().await
}

async fn health_follows_the_database_and_shutdown_is_graceful(db: TestDb) -> anyhow::Result<()> {
    let app = App::spawn(&db.store, None).await?;
    let (status, body) = app.get_json("/healthz").await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "ok");
    db.store.close().await;
    let (status, body) = app.get_json("/healthz").await?;
    assert_eq!(status, 503, "{body}");
    let response = app.client.get(app.url("/metrics")).send().await?;
    assert_eq!(response.status(), 200);
    assert!(response.text().await?.contains("gleaner_database_up 0"));
    app.stop().await
}

/// Eight searches at once, each as costly as the bounds allow or beyond them, on pages dense
/// with the searched words: they are answered (hits, or refused with 400) and meanwhile
/// `/healthz` keeps answering 200 and ingestion keeps writing.
async fn heavy_searches_are_bounded_and_never_starve_the_service(db: TestDb) -> anyhow::Result<()> {
    seed_dense(&db.store, 40).await?;
    let app = std::sync::Arc::new(App::spawn(&db.store, None).await?);
    let repeated = "amber ".repeat(40);
    let distinct = DENSE_WORDS.join(" ");
    let beyond = "amber ".repeat(200);
    let mut searches = tokio::task::JoinSet::new();
    for n in 0..8 {
        let query = [&repeated, &distinct, &beyond][n % 3]
            .trim()
            .replace(' ', "+");
        let app = app.clone();
        searches.spawn(async move { app.get_json(&format!("/search?q={query}")).await });
    }
    let feed_id = db.store.feeds().await?[0].id;
    let mut written = 0;
    while !searches.is_empty() {
        let (status, body) = app.get_json("/healthz").await?;
        assert_eq!(status, 200, "health while searches run: {body}");
        db.store
            .insert_article(&dense_article(feed_id, 1000 + written))
            .await
            .context("ingestion while searches run")?;
        written += 1;
        if let Some(answer) = searches.try_join_next() {
            let (status, body) = answer??;
            assert!(status == 200 || status == 400, "{status}: {body}");
        }
    }
    // The page of hits is full (50) only past 50 dense articles: fast searches may end
    // before ingestion wrote the ten more the seed lacks.
    while written < 10 {
        db.store
            .insert_article(&dense_article(feed_id, 1000 + written))
            .await?;
        written += 1;
    }
    let (status, body) = app
        .get_json(&format!("/search?q={}", beyond.trim()))
        .await?;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap_or("").contains("at most"),
        "{body}"
    );
    let (status, body) = app
        .get_json(&format!("/search?q={}", repeated.trim()))
        .await?;
    assert_eq!(status, 200, "a repeated word counts once: {body}");
    assert_eq!(
        ids_of(&body, "hits")?.len(),
        50,
        "{written} written meanwhile"
    );
    std::sync::Arc::into_inner(app)
        .context("searches hold no app")?
        .stop()
        .await
}

/// A search that outlives its budget is stopped and answered 503; the store serves the next
/// search as usual (the stopped connection does not stay poisoned).
async fn a_search_beyond_its_time_budget_stops(db: TestDb) -> anyhow::Result<()> {
    seed_dense(&db.store, 40).await?;
    let hurried = db
        .store
        .clone()
        .with_search_budget(std::time::Duration::from_millis(1));
    let app = App::spawn(&hurried, None).await?;
    let distinct = DENSE_WORDS.join("+");
    for _ in 0..3 {
        let (status, body) = app.get_json(&format!("/search?q={distinct}")).await?;
        assert_eq!(status, 503, "{body}");
    }
    let (status, body) = app.get_json("/healthz").await?;
    assert_eq!(status, 200, "{body}");
    app.stop().await?;
    let hits = db.store.search(&DENSE_WORDS.join(" "), 5).await?;
    assert_eq!(hits.len(), 5);
    Ok(())
}

/// Searches dropped part-way (a client that went away) stop, and leave no connection behind
/// whose time budget would stop the next queries.
async fn abandoned_searches_leave_the_pool_healthy(db: TestDb) -> anyhow::Result<()> {
    seed(&db.store, 300).await?;
    seed_dense(&db.store, 40).await?;
    let query = DENSE_WORDS.join(" ");
    let everything = gleaner::store::ArticleFilter {
        limit: 1000,
        ..Default::default()
    };
    for wait_micros in [0, 1_000, 20_000, 100_000] {
        let mut abandoned = tokio::task::JoinSet::new();
        for _ in 0..8 {
            let (store, query) = (db.store.clone(), query.clone());
            abandoned.spawn(async move {
                let wait = std::time::Duration::from_micros(wait_micros);
                let _ = tokio::time::timeout(wait, store.search(&query, 50)).await;
            });
        }
        while let Some(done) = abandoned.join_next().await {
            done?;
        }
        // As many long reads as the pool has connections: long enough to be stopped by a
        // search's budget left behind on a connection.
        for _ in 0..8 {
            assert_eq!(db.store.list_articles(&everything).await?.len(), 340);
        }
    }
    Ok(())
}
