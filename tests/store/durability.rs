//! No article is lost: entries remembered before the feed's validators are saved, retried on
//! later polls (304 or not) with backoff, given up after `article_retries`, kept across a cut
//! short poll and a failing database; plus the page checks of the pipeline (extraction
//! budget, binary pages, control characters, entries per document, the size of what is
//! stored). Both databases.

use crate::common;

use anyhow::Context as _;
use common::farm::{self, Farm, Route, story_path};
use common::{TestConfig, TestDb};
use gleaner::daemon::{self, PollSummary};
use gleaner::pipeline::{Context, FeedReport};
use gleaner::store::testing::StoreTesting as _;
use gleaner::store::{Backend, EntryState, Store};
use tokio_util::sync::CancellationToken;

on_both_databases!(
    a_page_that_failed_once_is_stored_by_a_later_poll_while_the_feed_answers_304,
    a_cut_short_poll_leaves_its_entries_pending_for_the_next,
    an_entry_that_keeps_failing_is_given_up_and_listed_by_failures,
    entries_survive_a_database_that_refuses_writes_during_a_poll,
    a_poll_that_cannot_remember_its_entries_keeps_the_old_validators,
    a_feed_is_due_again_when_its_first_failed_entry_is,
    an_extraction_over_its_budget_is_a_failure_and_given_up_at_once,
    a_binary_page_served_as_html_is_not_stored,
    control_characters_are_stripped_at_ingestion,
    a_huge_feed_gives_at_most_max_entries_per_feed_entries,
    text_and_html_past_max_text_bytes_are_stored_cut_and_noted,
);

const ETAG: &str = "\"v1\"";

/// Feed 1 of the farm: `articles` stories, the feed answering 304 once it has been read.
fn story_feed(farm: &Farm, articles: usize) -> String {
    let url = farm.story_feed(1, articles, false, farm::html_route);
    farm.wrap("/f1.xml", |route| farm::with_etag(route, ETAG));
    url
}

/// The farm's feed with failed entries due again at once.
fn config(db: &TestDb, feed: String) -> TestConfig {
    TestConfig::new(db)
        .loopback_farm()
        .set("fetch", "article_retry_seconds", 0)
        .feed("stories", feed)
}

async fn poll_with(
    ctx: &Context,
    cancel: &CancellationToken,
) -> anyhow::Result<(PollSummary, FeedReport)> {
    let mut reports = Vec::new();
    let summary = daemon::poll_once(ctx, true, cancel, |_| {}, |r| reports.push(r.clone())).await?;
    let report = reports.pop().context("one feed polled")?;
    Ok((summary, report))
}

async fn poll(ctx: &Context) -> anyhow::Result<(PollSummary, FeedReport)> {
    poll_with(ctx, &CancellationToken::new()).await
}

async fn entries(store: &Store, state: EntryState) -> anyhow::Result<i64> {
    let feed = store.feed_by_name("stories").await?.context("feed")?;
    Ok(store.count_entries(feed.id, state).await?)
}

async fn a_page_that_failed_once_is_stored_by_a_later_poll_while_the_feed_answers_304(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = story_feed(&farm, 3);
    farm.wrap(&story_path(101), |page| Route::Flaky {
        failures: 1,
        then: Box::new(page),
    });
    let ctx = daemon::prepare(config(&db, feed).parse()?).await?;
    let (first, _) = poll(&ctx).await?;
    assert_eq!((first.new_articles, first.failed_articles), (2, 1));
    let (second, report) = poll(&ctx).await?;
    assert_eq!(report.status.as_str(), "not_modified");
    assert_eq!(second.new_articles, 1, "{report:?}");
    assert_eq!(common::distinct_articles(&db.store).await?.len(), 3);
    assert_eq!(farm.hits(&story_path(101)), 2);
    assert_eq!(entries(&db.store, EntryState::Stored).await?, 3);
    Ok(())
}

async fn a_cut_short_poll_leaves_its_entries_pending_for_the_next(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = story_feed(&farm, 12);
    let cancel = CancellationToken::new();
    // Entries are processed oldest first: the last of the document is the first downloaded.
    let token = cancel.clone();
    farm.wrap(&story_path(111), |page| {
        Route::Cancels(token, Box::new(page))
    });
    let ctx = daemon::prepare(config(&db, feed).parse()?).await?;
    let (cut, _) = poll_with(&ctx, &cancel).await?;
    assert!(cut.new_articles < 12, "{cut:?}");
    let pending = entries(&db.store, EntryState::Pending).await?;
    assert_eq!(pending, 12 - i64::try_from(cut.new_articles)?);

    let (next, report) = poll(&ctx).await?;
    assert_eq!(report.status.as_str(), "not_modified");
    assert_eq!(cut.new_articles + next.new_articles, 12);
    assert_eq!(common::distinct_articles(&db.store).await?.len(), 12);
    assert_eq!(entries(&db.store, EntryState::Pending).await?, 0);
    Ok(())
}

async fn an_entry_that_keeps_failing_is_given_up_and_listed_by_failures(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = story_feed(&farm, 2);
    let broken = story_path(100);
    farm.route(
        &broken,
        Route::Status {
            status: 503,
            headers: vec![],
            body: "down".into(),
        },
    );
    let config = config(&db, feed).set("fetch", "article_retries", 2);
    let ctx = daemon::prepare(config.parse()?).await?;
    for _ in 0..5 {
        poll(&ctx).await?;
    }
    // One attempt and two retries, then left alone.
    assert_eq!(farm.hits(&broken), 3);
    assert_eq!(entries(&db.store, EntryState::GivenUp).await?, 1);
    assert_eq!(common::distinct_articles(&db.store).await?.len(), 1);

    let dir = tempfile::tempdir()?;
    let path = config.write(dir.path())?;
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .arg("--config")
        .arg(&path)
        .args(["failures", "--json"])
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let failures: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let given_up: Vec<&serde_json::Value> = failures
        .as_array()
        .context("a list")?
        .iter()
        .filter(|f| f["kind"] == "given_up")
        .collect();
    assert_eq!(given_up.len(), 1, "{failures:#}");
    assert_eq!(given_up[0]["article_url"], farm.url(&broken));
    Ok(())
}

/// Makes every insert into `table` fail (or work again), as a database that refuses writes
/// would.
async fn refuse_inserts(db: &TestDb, table: &str, refuse: bool) -> anyhow::Result<()> {
    let statements = match (db.store.backend(), refuse) {
        (Backend::Sqlite, true) => vec![format!(
            "CREATE TRIGGER refuse BEFORE INSERT ON {table} \
             BEGIN SELECT RAISE(ABORT, 'the database is unavailable'); END"
        )],
        (Backend::Sqlite, false) => vec!["DROP TRIGGER refuse".to_string()],
        (Backend::Postgres, true) => vec![
            "CREATE OR REPLACE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS \
             $$ BEGIN RAISE EXCEPTION 'the database is unavailable'; END $$"
                .to_string(),
            format!(
                "CREATE TRIGGER refuse BEFORE INSERT ON {table} \
                 FOR EACH ROW EXECUTE FUNCTION refuse()"
            ),
        ],
        (Backend::Postgres, false) => vec![format!("DROP TRIGGER refuse ON {table}")],
    };
    for statement in statements {
        common::faults::raw_execute(db, &statement).await?;
    }
    Ok(())
}

async fn entries_survive_a_database_that_refuses_writes_during_a_poll(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = story_feed(&farm, 4);
    let ctx = daemon::prepare(config(&db, feed).parse()?).await?;
    refuse_inserts(&db, "articles", true).await?;
    let (down, report) = poll(&ctx).await?;
    assert_eq!(
        (down.new_articles, down.failed_articles),
        (0, 4),
        "{report:?}"
    );
    refuse_inserts(&db, "articles", false).await?;

    let (back, report) = poll(&ctx).await?;
    assert_eq!(report.status.as_str(), "not_modified");
    assert_eq!(back.new_articles, 4, "{report:?}");
    assert_eq!(common::distinct_articles(&db.store).await?.len(), 4);
    Ok(())
}

async fn a_poll_that_cannot_remember_its_entries_keeps_the_old_validators(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = story_feed(&farm, 3);
    let ctx = daemon::prepare(config(&db, feed).parse()?).await?;
    refuse_inserts(&db, "feed_entries", true).await?;
    let (down, report) = poll(&ctx).await?;
    assert_eq!((down.new_articles, down.errors), (0, 1), "{report:?}");
    let state = db.store.feed_by_name("stories").await?.context("feed")?;
    assert_eq!(
        state.etag, None,
        "no validator saved over unremembered entries"
    );
    refuse_inserts(&db, "feed_entries", false).await?;

    let (back, report) = poll(&ctx).await?;
    assert_eq!(report.status.as_str(), "ok", "the document is read again");
    assert_eq!(back.new_articles, 3);
    Ok(())
}

async fn a_feed_is_due_again_when_its_first_failed_entry_is(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = story_feed(&farm, 2);
    farm.wrap(&story_path(100), |page| Route::Flaky {
        failures: 1,
        then: Box::new(page),
    });
    // Polled once a year, but an entry to retry in a minute brings the feed back then.
    let config = TestConfig::new(&db)
        .loopback_farm()
        .set("fetch", "article_retry_seconds", 60)
        .set("schedule", "default", "0 0 1 1 *")
        .feed("stories", feed);
    let ctx = daemon::prepare(config.parse()?).await?;
    let before = chrono::Utc::now();
    let (first, _) = poll(&ctx).await?;
    assert_eq!(first.failed_articles, 1);
    let after = chrono::Utc::now();
    let state = db.store.feed_by_name("stories").await?.context("feed")?;
    let next = state.next_due_at.context("scheduled")?;
    let minute = chrono::Duration::seconds(60);
    assert!(
        next >= before + minute && next <= after + minute,
        "{next} vs a minute after {before}"
    );
    Ok(())
}

async fn an_extraction_over_its_budget_is_a_failure_and_given_up_at_once(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    // A long page and a budget of a microsecond: no extraction fits.
    let feed = farm.story_feed(1, 1, false, |html| {
        farm::html_route(html.replace("</article>", &"<p>More text.</p>".repeat(5000)))
    });
    let config = config(&db, feed).set("extract", "timeout_seconds", 0.000_001);
    let ctx = daemon::prepare(config.parse()?).await?;
    for _ in 0..3 {
        poll(&ctx).await?;
    }
    assert_eq!(farm.hits(&story_path(100)), 1, "not fetched again");
    assert_eq!(entries(&db.store, EntryState::GivenUp).await?, 1);
    let kinds: Vec<String> = db
        .store
        .recent_failures(10)
        .await?
        .into_iter()
        .map(|f| f.kind)
        .collect();
    assert!(kinds.contains(&"extract_timeout".to_string()), "{kinds:?}");
    assert!(common::distinct_articles(&db.store).await?.is_empty());
    Ok(())
}

async fn a_binary_page_served_as_html_is_not_stored(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let garbage: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let feed = farm.story_feed(1, 2, false, farm::html_route);
    farm.route(&story_path(100), farm::ok("text/html", garbage));
    let ctx = daemon::prepare(config(&db, feed).parse()?).await?;
    let (summary, _) = poll(&ctx).await?;
    assert_eq!((summary.new_articles, summary.failed_articles), (1, 1));
    let failure = db
        .store
        .recent_failures(10)
        .await?
        .into_iter()
        .find(|f| f.article_url.as_deref() == Some(farm.url(&story_path(100)).as_str()))
        .context("a failure for the binary page")?;
    assert_eq!(failure.kind, "not_text");
    Ok(())
}

async fn control_characters_are_stripped_at_ingestion(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let escape = "\u{1b}]0;owned\u{7}\u{1b}[2J";
    let html = farm::article_page(
        "A story",
        &farm::paragraphs(1)
            .into_iter()
            .map(|p| format!("{p}{escape}"))
            .collect::<Vec<_>>(),
        None,
    );
    farm.html("/a/1.html", &html);
    let item = serde_json::json!({
        "id": "1",
        "url": farm.url("/a/1.html"),
        "title": format!("Title{escape} here"),
        "authors": [{"name": format!("Ann{escape}")}],
    });
    let feed = serde_json::json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Escapes",
        "items": [item],
    });
    farm.route(
        "/feed.json",
        farm::ok("application/feed+json", feed.to_string().into()),
    );
    let ctx = daemon::prepare(config(&db, farm.url("/feed.json")).parse()?).await?;
    let (summary, report) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 1, "{report:?}");
    let listed = common::distinct_articles(&db.store).await?;
    let article = db
        .store
        .article(listed[0].id)
        .await?
        .context("the article")?;
    let has_controls = |s: &str| s.chars().any(|c| c.is_control() && c != '\n' && c != '\t');
    assert_eq!(article.title, "Title]0;owned[2J here");
    assert!(!has_controls(article.author.as_deref().unwrap_or_default()));
    assert!(!has_controls(&article.text), "{:?}", article.text);
    assert!(article.text.contains("[2J"), "the printable rest stays");
    Ok(())
}

async fn a_huge_feed_gives_at_most_max_entries_per_feed_entries(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    // 2,000 items, item n published n minutes after the first, in no particular order; no
    // page exists, so each one taken costs one request.
    let items: String = (0..2000)
        .map(|i| (i * 7919) % 2000)
        .map(|n| {
            let published = chrono::DateTime::UNIX_EPOCH + chrono::Duration::minutes(n);
            format!(
                "<item><title>Item {n}</title><link>{}</link><pubDate>{}</pubDate></item>",
                farm.url(&format!("/item/{n}")),
                published.to_rfc2822()
            )
        })
        .collect();
    let rss = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Huge</title>{items}</channel></rss>"
    );
    farm.route("/huge.xml", farm::ok("application/rss+xml", rss.into()));
    let config = config(&db, farm.url("/huge.xml"))
        .set("fetch", "max_entries_per_feed", 25)
        .set("fetch", "article_retries", 0);
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, _) = poll(&ctx).await?;
    assert_eq!(summary.failed_articles, 25);
    let taken: Vec<usize> = (0..2000)
        .filter(|n| farm.hits(&format!("/item/{n}")) > 0)
        .collect();
    assert_eq!(taken, (1975..2000).collect::<Vec<_>>(), "the newest 25");
    Ok(())
}

/// A long article is stored with at most `max_text_bytes` of text and of HTML, cut after a
/// paragraph; a page of a million nodes is extracted from its start. Both are stored, each
/// noted in the failures table against its page.
async fn text_and_html_past_max_text_bytes_are_stored_cut_and_noted(
    db: TestDb,
) -> anyhow::Result<()> {
    const MAX: usize = 8192;
    let farm = Farm::start().await?;
    let long: Vec<String> = (0..400).flat_map(farm::paragraphs).collect();
    let feed = farm.story_feed(1, 2, false, farm::html_route);
    farm.html(&story_path(100), &farm::article_page("Long", &long, None));
    let mut huge = String::from("<html><head><title>Huge</title></head><body>");
    huge.push_str(&"w<br>".repeat(500_000));
    farm.html(&story_path(101), &huge);
    let config = config(&db, feed).set("extract", "max_text_bytes", MAX as i64);
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, report) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 2, "{report:?}");

    for article in common::distinct_articles(&db.store).await? {
        let article = db.store.article(article.id).await?.context("the article")?;
        assert!(article.text.len() <= MAX, "{}", article.text.len());
        assert!(article.html.len() <= MAX, "{}", article.html.len());
        assert!(article.text.len() > MAX / 2, "{}", article.text.len());
        assert!(article.html.len() > MAX / 2, "{}", article.html.len());
        if article.url.ends_with(&story_path(100)) {
            assert!(article.text.contains("Paragraph 0 of story 0"));
            assert!(
                article.text.ends_with("in the spring."),
                "after a paragraph"
            );
            assert!(article.html.ends_with("</p>"), "{}", article.html);
        }
    }
    let notes: Vec<(String, String)> = db
        .store
        .recent_failures(10)
        .await?
        .into_iter()
        .map(|f| (f.kind, f.article_url.unwrap_or_default()))
        .collect();
    let noted = |kind: &str, path: &str| notes.contains(&(kind.to_string(), farm.url(path)));
    assert!(noted("truncated", &story_path(100)), "{notes:?}");
    assert!(noted("truncated", &story_path(101)), "{notes:?}");
    assert!(noted("too_complex", &story_path(101)), "{notes:?}");
    assert_eq!(notes.len(), 3, "{notes:?}");
    Ok(())
}
