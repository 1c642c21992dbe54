//! Ingestion end to end: a feed farm on loopback, `poll_once`, both databases.

use crate::common;

use std::io::Write as _;
use std::time::Duration;

use anyhow::Context as _;
use chrono::Utc;
use common::farm::{self, Farm, Item, Route};
use common::{TestConfig, TestDb, poll};
use gleaner::daemon;
use gleaner::store::testing::StoreTesting as _;
use gleaner::store::{ArticleFilter, EntryAttempt, EntryState, NewEntry, PageEncoding};
use tokio_util::sync::CancellationToken;

on_both_databases!(
    rss_atom_and_json_feeds_are_stored_with_text_and_images,
    a_second_poll_fetches_nothing_already_stored,
    an_article_in_two_feeds_is_stored_once,
    bad_feeds_are_recorded_and_the_rest_goes_on,
    bad_pages_are_recorded_and_the_rest_goes_on,
    rate_limited_feeds_back_off_as_asked,
    a_latin1_page_without_http_charset_is_decoded,
    a_gzip_encoded_page_is_stored_as_it_came,
    the_guard_and_robots_txt_hold_inside_the_pipeline,
    feeds_with_entries_never_poll_ok_with_nothing_stored_or_said,
    a_json_feed_with_odd_items_stores_every_usable_one,
    items_sharing_a_guid_with_different_links_are_each_stored_once,
    entries_an_older_version_folded_into_one_guid_are_stored_after_the_upgrade,
    feed_summaries_are_stored_sanitized_with_their_text,
    a_text_rule_reads_the_words_of_a_summary_not_its_markup,
    a_feed_listing_another_sites_page_takes_nothing_from_that_sites_feed,
);

/// A configuration for the farm: loopback allowed, no politeness delay, no robots.txt.
fn config(db: &TestDb, feeds: &[(&str, String)]) -> TestConfig {
    feeds.iter().fold(
        TestConfig::new(db)
            .loopback_farm()
            .set("fetch", "max_page_bytes", 300_000),
        |config, (name, url)| config.feed(name, url.clone()),
    )
}

fn item(farm: &Farm, n: usize) -> Item {
    Item {
        guid: format!("urn:farm:{n}"),
        url: farm.url(&format!("/a/{n}.html")),
        title: format!("Story number {n}"),
    }
}

fn serve_article(farm: &Farm, n: usize, image: bool) {
    let src = image.then(|| format!("/img/{n}.png"));
    farm.html(
        &format!("/a/{n}.html"),
        &farm::article_page(
            &format!("Story number {n}"),
            &farm::paragraphs(n),
            src.as_deref(),
        ),
    );
    if image {
        farm.route(&format!("/img/{n}.png"), farm::ok("image/png", farm::png()));
    }
}

async fn rss_atom_and_json_feeds_are_stored_with_text_and_images(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=6 {
        serve_article(&farm, n, true);
    }
    farm.route(
        "/rss.xml",
        farm::ok(
            "application/rss+xml",
            farm::rss(&[item(&farm, 1), item(&farm, 2)]).into(),
        ),
    );
    farm.route(
        "/atom.xml",
        farm::ok(
            "application/atom+xml",
            farm::atom(&[item(&farm, 3), item(&farm, 4)]).into(),
        ),
    );
    farm.route(
        "/feed.json",
        farm::ok(
            "application/feed+json",
            farm::json_feed(&[item(&farm, 5), item(&farm, 6)]).into(),
        ),
    );
    let ctx = daemon::prepare(
        config(
            &db,
            &[
                ("rss", farm.url("/rss.xml")),
                ("atom", farm.url("/atom.xml")),
                ("json", farm.url("/feed.json")),
            ],
        )
        .parse()?,
    )
    .await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.feeds, 3);
    assert_eq!(summary.new_articles, 6, "{reports:#?}");
    assert_eq!(
        (summary.failed_articles, summary.errors),
        (0, 0),
        "{reports:#?}"
    );
    assert!(summary.summary_line().starts_with(
        "feeds=3 new_articles=6 failed_articles=0 failed_images=0 errors=0 blocked=0 leased=0 elapsed_ms="
    ));

    let listed = db
        .store
        .list_articles(&ArticleFilter {
            limit: 100,
            ascending: true,
            ..Default::default()
        })
        .await?;
    assert_eq!(listed.len(), 6);
    for row in &listed {
        let article = db.store.article(row.id).await?.context("stored")?;
        let n: usize = article
            .url
            .trim_end_matches(".html")
            .rsplit('/')
            .next()
            .context("n")?
            .parse()?;
        assert_eq!(article.title, format!("Story number {n}"));
        assert!(
            article.text.contains(&format!("Paragraph 0 of story {n}")),
            "{}",
            article.text
        );
        assert!(
            article.text.contains(&format!("Paragraph 4 of story {n}")),
            "{}",
            article.text
        );
        assert!(
            !article.text.contains("Most read"),
            "aside is not the article: {}",
            article.text
        );
        assert!(
            !article.text.contains("Privacy"),
            "footer is not the article"
        );
        assert!(article.html.contains("<p>"), "{}", article.html);
        assert_eq!(article.guid, Some(format!("urn:farm:{n}")));
        let (raw, _) = db
            .store
            .raw_page(article.id)
            .await?
            .context("raw page kept")?;
        assert!(String::from_utf8(raw.decompress()?)?.contains("Example News"));
        let images = db.store.article_images(article.id).await?;
        assert_eq!(images.len(), 1, "{images:?}");
        assert_eq!(images[0].url, farm.url(&format!("/img/{n}.png")));
        assert_eq!(images[0].mime.as_deref(), Some("image/png"));
        let sha = images[0].sha256.clone().context("image downloaded")?;
        assert_eq!(
            db.store.image_blob(&sha).await?.context("blob")?.bytes,
            farm::png()
        );
    }
    let feeds = db.store.feeds().await?;
    assert!(
        feeds
            .iter()
            .all(|f| f.last_status.as_deref() == Some("ok") && f.articles == 2)
    );
    assert!(
        feeds
            .iter()
            .all(|f| f.next_due_at.is_some_and(|t| t > Utc::now()))
    );
    Ok(())
}

async fn a_second_poll_fetches_nothing_already_stored(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=3 {
        serve_article(&farm, n, false);
    }
    let items: Vec<Item> = (1..=3).map(|n| item(&farm, n)).collect();
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", farm::rss(&items).into()),
    );
    farm.route(
        "/etag.xml",
        Route::Ok {
            content_type: "application/rss+xml".into(),
            body: farm::rss(&items).into(),
            etag: Some("\"v1\"".into()),
        },
    );
    let ctx = daemon::prepare(
        config(
            &db,
            &[
                ("plain", farm.url("/rss.xml")),
                ("etag", farm.url("/etag.xml")),
            ],
        )
        .parse()?,
    )
    .await?;
    let (first, _) = poll(&ctx).await?;
    assert_eq!(first.new_articles, 3);
    let (second, reports) = poll(&ctx).await?;
    assert_eq!(
        (second.new_articles, second.failed_articles, second.errors),
        (0, 0, 0)
    );
    for n in 1..=3 {
        assert_eq!(
            farm.hits(&format!("/a/{n}.html")),
            1,
            "article {n} downloaded once"
        );
    }
    let etag = reports
        .iter()
        .find(|r| r.feed == "etag")
        .context("etag feed")?;
    assert_eq!(etag.status.as_str(), "not_modified");
    let plain = reports
        .iter()
        .find(|r| r.feed == "plain")
        .context("plain feed")?;
    assert_eq!((plain.status.as_str(), plain.known_articles), ("ok", 3));
    assert_eq!(
        db.store.feed_by_name("etag").await?.and_then(|f| f.etag),
        Some("\"v1\"".to_string())
    );
    Ok(())
}

async fn an_article_in_two_feeds_is_stored_once(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    serve_article(&farm, 1, false);
    let mut tracked = item(&farm, 1);
    tracked.url.push_str("?utm_source=other-feed#comments");
    tracked.guid = "another-guid".into();
    farm.route(
        "/one.xml",
        farm::ok("application/rss+xml", farm::rss(&[item(&farm, 1)]).into()),
    );
    farm.route(
        "/two.xml",
        farm::ok("application/rss+xml", farm::rss(&[tracked]).into()),
    );
    let ctx = daemon::prepare(
        config(
            &db,
            &[("one", farm.url("/one.xml")), ("two", farm.url("/two.xml"))],
        )
        .parse()?,
    )
    .await?;
    let (summary, _) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 1);
    assert_eq!(
        db.store
            .list_articles(&ArticleFilter {
                limit: 10,
                ..Default::default()
            })
            .await?
            .len(),
        1
    );
    // Whichever feed came second saw it as known, whether before or after downloading.
    assert!(farm.hits("/a/1.html") <= 2);
    let (again, _) = poll(&ctx).await?;
    assert_eq!(again.new_articles, 0);
    Ok(())
}

async fn bad_feeds_are_recorded_and_the_rest_goes_on(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    serve_article(&farm, 1, false);
    farm.route(
        "/good.xml",
        farm::ok("application/rss+xml", farm::rss(&[item(&farm, 1)]).into()),
    );
    farm.route(
        "/malformed.xml",
        farm::ok(
            "application/rss+xml",
            b"<rss><channel><item><title>x</ti".to_vec(),
        ),
    );
    farm.route(
        "/500.xml",
        Route::Status {
            status: 500,
            headers: vec![],
            body: "boom".into(),
        },
    );
    farm.html(
        "/html.xml",
        "<!DOCTYPE html><html><body><p>a web page</p></body></html>",
    );
    farm.route("/loop.xml", Route::Redirect("/loop.xml".into()));
    farm.route("/slow.xml", Route::Slow(Duration::from_secs(5)));
    farm.route("/huge.xml", Route::Endless);
    let bad = [
        "malformed",
        "500",
        "html",
        "loop",
        "slow",
        "huge",
        "missing",
    ];
    let mut feeds: Vec<(&str, String)> = bad
        .iter()
        .map(|name| (*name, farm.url(&format!("/{name}.xml"))))
        .collect();
    feeds.push(("good", farm.url("/good.xml")));
    let ctx = daemon::prepare(
        config(&db, &feeds)
            .set("fetch", "max_feed_bytes", 100_000)
            .parse()?,
    )
    .await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 1, "{reports:#?}");
    assert_eq!(summary.errors, bad.len(), "{reports:#?}");

    let status = |name: &str| {
        reports
            .iter()
            .find(|r| r.feed == name)
            .map(|r| r.status.as_str())
    };
    assert_eq!(status("good"), Some("ok"));
    assert_eq!(status("500"), Some("http_status"));
    assert_eq!(status("missing"), Some("http_status"));
    assert_eq!(status("html"), Some("not_a_feed"));
    assert_eq!(status("huge"), Some("too_large"));
    for name in bad {
        let feed = db.store.feed_by_name(name).await?.context("feed row")?;
        assert_eq!(feed.error_count, 1, "{name}");
        assert!(feed.last_error.is_some(), "{name}");
        assert!(
            feed.next_due_at.is_some_and(|t| t > Utc::now()),
            "{name} is retried later"
        );
    }
    let failures = db.store.recent_failures(100).await?;
    assert_eq!(
        failures.iter().filter(|f| f.stage == "feed").count(),
        bad.len()
    );
    Ok(())
}

async fn bad_pages_are_recorded_and_the_rest_goes_on(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    serve_article(&farm, 1, false);
    let bomb = {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(&vec![b' '; 20_000_000])?;
        encoder.finish()?
    };
    let pages: Vec<(&str, Route)> = vec![
        (
            "pdf",
            farm::ok("application/pdf", b"%PDF-1.7 not html".to_vec()),
        ),
        (
            "500",
            Route::Status {
                status: 500,
                headers: vec![],
                body: "boom".into(),
            },
        ),
        ("endless", Route::Endless),
        ("slow", Route::Slow(Duration::from_secs(5))),
        ("loop", Route::Redirect("/p/loop".into())),
        (
            "bomb",
            Route::Gzip {
                content_type: "text/html".into(),
                body: bomb,
            },
        ),
        (
            "empty",
            farm::ok("text/html", b"<html><body></body></html>".to_vec()),
        ),
        (
            "badgzip",
            Route::Gzip {
                content_type: "text/html".into(),
                body: b"<html>said to be gzip, sent plain</html>".to_vec(),
            },
        ),
    ];
    let mut items = vec![item(&farm, 1)];
    for (name, route) in pages.iter().cloned() {
        farm.route(&format!("/p/{name}"), route);
        items.push(Item {
            guid: name.into(),
            url: farm.url(&format!("/p/{name}")),
            title: format!("Page {name}"),
        });
    }
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", farm::rss(&items).into()),
    );
    let config = config(&db, &[("mixed", farm.url("/rss.xml"))])
        .set("fetch", "article_retry_seconds", 0)
        .set("fetch", "article_retries", 2);
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.errors, 0, "the feed itself is fine: {reports:#?}");
    assert_eq!(summary.new_articles, 1, "{reports:#?}");
    assert_eq!(summary.failed_articles, pages.len(), "{reports:#?}");
    let failures = db.store.recent_failures(100).await?;
    let kind = |name: &str| {
        failures
            .iter()
            .find(|f| f.article_url.as_deref() == Some(farm.url(&format!("/p/{name}")).as_str()))
            .map(|f| f.kind.clone())
    };
    assert_eq!(kind("pdf").as_deref(), Some("not_html"));
    assert_eq!(kind("500").as_deref(), Some("http_status"));
    assert_eq!(kind("endless").as_deref(), Some("too_large"));
    assert_eq!(kind("bomb").as_deref(), Some("too_large"));
    // A page with nothing on it is judged, and fails by its verdict.
    assert_eq!(kind("empty").as_deref(), Some("not_article"));
    assert_eq!(kind("badgzip").as_deref(), Some("decode"));
    assert!(kind("slow").is_some() && kind("loop").is_some());
    assert_eq!(
        db.store.feed_by_name("mixed").await?.map(|f| f.error_count),
        Some(0)
    );

    // Failed pages are tried again on the next polls (`article_retries` times), then left
    // alone.
    for _ in 0..4 {
        poll(&ctx).await?;
    }
    assert_eq!(farm.hits("/p/pdf"), 3);
    assert_eq!(farm.hits("/a/1.html"), 1);
    Ok(())
}

/// A page its server sent gzip-encoded is kept as those very bytes (no second compression);
/// a page sent plain is compressed for storage. Both read back as the page.
async fn a_gzip_encoded_page_is_stored_as_it_came(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let pages: Vec<String> = (1..=2)
        .map(|n| farm::article_page(&format!("Story number {n}"), &farm::paragraphs(n), None))
        .collect();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(pages[0].as_bytes())?;
    let gzip = encoder.finish()?;
    farm.route(
        "/a/1.html",
        Route::Gzip {
            content_type: "text/html; charset=utf-8".into(),
            body: gzip.clone(),
        },
    );
    farm.html("/a/2.html", &pages[1]);
    farm.route(
        "/rss.xml",
        farm::ok(
            "application/rss+xml",
            farm::rss(&[item(&farm, 1), item(&farm, 2)]).into(),
        ),
    );
    let ctx = daemon::prepare(config(&db, &[("rss", farm.url("/rss.xml"))]).parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 2, "{reports:#?}");
    let listed = db
        .store
        .list_articles(&ArticleFilter {
            limit: 10,
            ascending: true,
            ..Default::default()
        })
        .await?;
    for (n, page) in pages.iter().enumerate() {
        let url = farm.url(&format!("/a/{}.html", n + 1));
        let row = listed
            .iter()
            .find(|row| row.url == url.as_str())
            .context("stored")?;
        let article = db.store.article(row.id).await?.context("stored")?;
        assert!(
            article
                .text
                .contains(&format!("Paragraph 4 of story {}", n + 1))
        );
        let (raw, _) = db.store.raw_page(row.id).await?.context("raw page kept")?;
        assert_eq!(raw.decompress()?, page.as_bytes(), "{url}");
        if n == 0 {
            assert_eq!(raw.encoding(), PageEncoding::Gzip);
            assert_eq!(raw.as_bytes(), gzip.as_slice(), "kept as sent");
        } else {
            assert_eq!(raw.encoding(), PageEncoding::Zstd);
        }
    }
    Ok(())
}

async fn rate_limited_feeds_back_off_as_asked(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.route(
        "/busy.xml",
        Route::Status {
            status: 429,
            headers: vec![("Retry-After".into(), "7200".into())],
            body: String::new(),
        },
    );
    let ctx = daemon::prepare(config(&db, &[("busy", farm.url("/busy.xml"))]).parse()?).await?;
    let before = Utc::now();
    let (summary, _) = poll(&ctx).await?;
    assert_eq!(summary.errors, 1);
    let feed = db.store.feed_by_name("busy").await?.context("feed")?;
    let due = feed.next_due_at.context("scheduled")?;
    assert!(
        due >= before + chrono::Duration::seconds(7200),
        "{due} honours Retry-After"
    );
    assert_eq!(feed.last_status.as_deref(), Some("http_status"));
    // Not due any more: a cycle without --all leaves it alone.
    let summary = daemon::poll_once(&ctx, false, &CancellationToken::new(), |_| {}, |_| {}).await?;
    assert_eq!(summary.feeds, 0);
    assert_eq!(farm.hits("/busy.xml"), 1);
    Ok(())
}

async fn a_latin1_page_without_http_charset_is_decoded(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let html = farm::article_page(
        "Crème brûlée",
        &farm::paragraphs(1)
            .iter()
            .map(|p| format!("{p} Café, naïve, señor."))
            .collect::<Vec<_>>(),
        None,
    )
    .replace("<meta charset=\"utf-8\">", "<meta charset=\"iso-8859-1\">");
    let latin1: Vec<u8> = html
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    farm.route("/latin1.html", farm::ok("text/html", latin1));
    let entry = Item {
        guid: "l1".into(),
        url: farm.url("/latin1.html"),
        title: "Crème brûlée".into(),
    };
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", farm::rss(&[entry]).into()),
    );
    let ctx = daemon::prepare(config(&db, &[("latin", farm.url("/rss.xml"))]).parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 1, "{reports:#?}");
    let row = db
        .store
        .list_articles(&ArticleFilter {
            limit: 1,
            ..Default::default()
        })
        .await?;
    let article = db.store.article(row[0].id).await?.context("stored")?;
    assert!(
        article.text.contains("Café, naïve, señor."),
        "{}",
        article.text
    );
    Ok(())
}

async fn the_guard_and_robots_txt_hold_inside_the_pipeline(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    serve_article(&farm, 1, false);
    serve_article(&farm, 2, false);
    farm.route(
        "/robots.txt",
        farm::ok(
            "text/plain",
            b"User-agent: *\nDisallow: /a/2.html\n".to_vec(),
        ),
    );
    // A page that redirects to another loopback address: private, so refused.
    let private = format!("http://127.0.0.2:{}/a/1.html", farm.addr.port());
    farm.route("/moved", Route::Redirect(private));
    let items = vec![
        item(&farm, 1),
        item(&farm, 2),
        Item {
            guid: "moved".into(),
            url: farm.url("/moved"),
            title: "Moved".into(),
        },
    ];
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", farm::rss(&items).into()),
    );
    let mut config = config(&db, &[("guarded", farm.url("/rss.xml"))]).parse()?;
    config.fetch.allow_private_networks = false;
    config.fetch.respect_robots_txt = true;
    let mut ctx = daemon::prepare(config).await?;
    // The farm itself is on loopback: let exactly its address through, nothing else.
    ctx.fetcher = gleaner::fetch::Fetcher::builder(&ctx.config.fetch)
        .guard_exemption(farm.addr.ip())
        .build()?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 1, "{reports:#?}");
    assert_eq!(summary.failed_articles, 2, "{reports:#?}");
    let failures = db.store.recent_failures(10).await?;
    let kind = |path: &str| {
        failures
            .iter()
            .find(|f| f.article_url.as_deref() == Some(farm.url(path).as_str()))
            .map(|f| f.kind.clone())
    };
    assert_eq!(kind("/a/2.html").as_deref(), Some("robots"));
    assert_eq!(kind("/moved").as_deref(), Some("refused_address"));
    assert_eq!(
        farm.hits("/a/2.html"),
        0,
        "a disallowed page is never requested"
    );
    Ok(())
}

/// Feeds as the wild web writes them (Atom 0.3, versionless RSS in a namespace, Latin-1 told
/// only by HTTP, entries with no article link or one odd element): every entry is stored,
/// or a failure row (what `gleaner failures` lists) says why it was not.
async fn feeds_with_entries_never_poll_ok_with_nothing_stored_or_said(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=4 {
        serve_article(&farm, n, false);
    }
    let atom03 = format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Old Atom</title>
<modified>2004-03-14T18:30:02Z</modified>
<entry><title mode="base64" type="text/plain">U3Rvcnkgb25l</title><id>urn:a03:1</id>
<link rel="alternate" type="text/html" href="{}"/><issued>2004-03-14T08:00:00Z</issued></entry>
</feed>"#,
        farm.url("/a/1.html")
    );
    farm.route(
        "/atom03.xml",
        farm::ok("application/atom+xml", atom03.into()),
    );
    let latin1: Vec<u8> = format!(
        "<rss xmlns=\"http://backend.userland.com/rss2\"><channel><title>Café</title>\
         <item><title>Crème brûlée</title><link>{}</link></item></channel></rss>",
        farm.url("/a/2.html")
    )
    .chars()
    .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
    .collect();
    farm.route(
        "/latin1.xml",
        farm::ok("application/rss+xml; charset=ISO-8859-1", latin1),
    );
    let mixed = format!(
        r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>Mixed</title>
<entry><title>Licence only</title><id>urn:m:licence</id>
<link rel="license" href="{licence}"/></entry>
<entry><title>Odd content</title><id>urn:m:odd</id><link href="{odd}"/>
<content src="{odd}" type="text/plain">text where none may be</content></entry>
<entry xmlns="http://vocabulary.example/not-atom"><title>Foreign</title><link href="{odd}"/></entry>
<entry><title type="">Story three</title><id>urn:m:3</id><link href="{three}"/></entry>
</feed>"#,
        licence = farm.url("/licence.html"),
        odd = farm.url("/a/4.html"),
        three = farm.url("/a/3.html"),
    );
    farm.route("/mixed.xml", farm::ok("application/atom+xml", mixed.into()));
    let nothing_usable = format!(
        r#"<rss version="2.0"><channel><title>Nothing usable</title>
<item><title>Only a guid</title><guid isPermaLink="false">urn:n:1</guid></item>
<item><title>Only an enclosure</title><enclosure url="{}" type="audio/mpeg" length="1"/></item>
</channel></rss>"#,
        farm.url("/episode.mp3")
    );
    farm.route(
        "/nothing.xml",
        farm::ok("application/rss+xml", nothing_usable.into()),
    );
    let ctx = daemon::prepare(
        config(
            &db,
            &[
                ("atom03", farm.url("/atom03.xml")),
                ("latin1", farm.url("/latin1.xml")),
                ("mixed", farm.url("/mixed.xml")),
                ("nothing", farm.url("/nothing.xml")),
            ],
        )
        .parse()?,
    )
    .await?;
    let (summary, reports) = poll(&ctx).await?;
    let counts: Vec<(&str, &str, usize, usize)> = reports
        .iter()
        .map(|r| {
            (
                r.feed.as_str(),
                r.status.as_str(),
                r.new_articles,
                r.failed_articles,
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            ("atom03", "ok", 1, 0),
            ("latin1", "ok", 1, 0),
            ("mixed", "ok", 2, 2),
            ("nothing", "ok", 0, 2),
        ],
        "{reports:#?}"
    );
    assert_eq!(summary.new_articles, 4);
    assert_eq!(
        farm.hits("/licence.html"),
        0,
        "a licence is never the article"
    );

    let titles: Vec<String> = db
        .store
        .list_articles(&ArticleFilter {
            limit: 10,
            ascending: true,
            ..Default::default()
        })
        .await?
        .into_iter()
        .map(|a| a.title)
        .collect();
    for title in ["Story one", "Crème brûlée", "Odd content", "Story three"] {
        assert!(titles.iter().any(|t| t == title), "{title} in {titles:?}");
    }

    let failures = db.store.recent_failures(100).await?;
    let mut said: Vec<(String, String, String)> = failures
        .iter()
        .map(|f| {
            let feed = f.feed.clone().unwrap_or_default();
            (feed, f.stage.clone(), f.kind.clone())
        })
        .collect();
    said.sort();
    let expected = [
        ("mixed", "feed", "no_article_link"),
        ("mixed", "feed", "unreadable_entry"),
        ("nothing", "feed", "no_article_link"),
        ("nothing", "feed", "no_article_link"),
    ]
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()));
    assert_eq!(said, expected, "{failures:#?}");
    assert!(
        failures
            .iter()
            .any(|f| f.message.contains("\"urn:m:licence\"") && f.message.contains("rel=license")),
        "{failures:#?}"
    );

    // The next poll fetches the documents anew (they carry no validators): the entries that
    // give no article are neither recorded nor counted as failed again.
    let (_, again) = poll(&ctx).await?;
    assert!(again.iter().all(|r| r.failed_articles == 0), "{again:#?}");
    assert_eq!(db.store.recent_failures(100).await?.len(), failures.len());
    Ok(())
}

/// A JSON Feed of six items, four with a value of the wrong type: the numeric id is read as
/// its string, the odd optional fields are dropped, and the two items left without an article
/// (a numeric URL, an id that is a list) are recorded as failures, never downloaded.
async fn a_json_feed_with_odd_items_stores_every_usable_one(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=6 {
        serve_article(&farm, n, false);
    }
    let url = |n: usize| farm.url(&format!("/a/{n}.html"));
    let document = serde_json::json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Odd values",
        "items": [
            {"id": "urn:odd:1", "url": url(1), "title": "Story number 1"},
            {"id": 12345, "url": url(2), "title": "Story number 2"},
            {"id": "urn:odd:3", "url": url(3), "title": ["x"]},
            {"id": "urn:odd:4", "url": url(4), "title": "Story number 4", "authors": "bob"},
            {"id": "urn:odd:5", "url": 5, "title": "Story number 5"},
            {"id": ["urn:odd:6"], "url": url(6), "title": "Story number 6"},
        ]
    });
    farm.route(
        "/odd.json",
        farm::ok("application/feed+json", document.to_string().into()),
    );
    let ctx = daemon::prepare(config(&db, &[("odd", farm.url("/odd.json"))]).parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(
        (
            summary.new_articles,
            summary.failed_articles,
            summary.errors
        ),
        (4, 2, 0),
        "{reports:#?}"
    );
    let mut kinds: Vec<String> = db
        .store
        .recent_failures(10)
        .await?
        .into_iter()
        .map(|f| f.kind)
        .collect();
    kinds.sort();
    assert_eq!(kinds, ["no_article_link", "unreadable_entry"]);
    for n in [5, 6] {
        assert_eq!(farm.hits(&format!("/a/{n}.html")), 0, "story {n}");
    }
    let mut guids = Vec::new();
    for row in common::distinct_articles(&db.store).await? {
        let article = db.store.article(row.id).await?.context("stored")?;
        guids.push(article.guid.unwrap_or_default());
    }
    guids.sort();
    assert_eq!(guids, ["12345", "urn:odd:1", "urn:odd:3", "urn:odd:4"]);
    Ok(())
}

/// The feed of `n` items that all carry the GUID `urn:farm:same`, story 1 first.
fn same_guid_feed(farm: &Farm, stories: std::ops::RangeInclusive<usize>) -> Route {
    let items: Vec<Item> = stories
        .map(|n| Item {
            guid: "urn:farm:same".into(),
            ..item(farm, n)
        })
        .collect();
    farm::ok("application/rss+xml", farm::rss(&items).into())
}

/// A feed that gives one GUID to ten items with ten links (a known publisher bug): ten
/// articles, each page downloaded once, and nothing new on the next poll.
async fn items_sharing_a_guid_with_different_links_are_each_stored_once(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=10 {
        serve_article(&farm, n, false);
    }
    farm.route("/same.xml", same_guid_feed(&farm, 1..=10));
    let ctx = daemon::prepare(config(&db, &[("same", farm.url("/same.xml"))]).parse()?).await?;
    let (first, reports) = poll(&ctx).await?;
    assert_eq!(
        (first.new_articles, first.failed_articles),
        (10, 0),
        "{reports:#?}"
    );
    assert_eq!(common::distinct_articles(&db.store).await?.len(), 10);
    let (second, reports) = poll(&ctx).await?;
    assert_eq!(
        (second.new_articles, second.failed_articles),
        (0, 0),
        "{reports:#?}"
    );
    assert_eq!(reports[0].known_articles, 10);
    for n in 1..=10 {
        assert_eq!(farm.hits(&format!("/a/{n}.html")), 1, "story {n}");
    }
    assert!(db.store.recent_failures(10).await?.is_empty());
    Ok(())
}

/// A store as an older version left it: story 1 stored under the shared GUID, the entries of
/// stories 2–10 remembered under it too and settled as stored, their pages never downloaded.
/// The next poll stores each of them, and story 1 neither again nor twice.
async fn entries_an_older_version_folded_into_one_guid_are_stored_after_the_upgrade(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=10 {
        serve_article(&farm, n, false);
    }
    farm.route("/same.xml", same_guid_feed(&farm, 1..=1));
    let ctx = daemon::prepare(config(&db, &[("same", farm.url("/same.xml"))]).parse()?).await?;
    let (first, _) = poll(&ctx).await?;
    assert_eq!(first.new_articles, 1);
    let feed = db.store.feed_by_name("same").await?.context("feed row")?;
    let folded: Vec<NewEntry> = (2..=10)
        .map(|n| NewEntry {
            guid: Some("urn:farm:same".into()),
            url: farm.url(&format!("/a/{n}.html")),
            title: format!("Story number {n}"),
            author: None,
            summary: None,
            content: None,
            published_at: None,
            enclosures: Vec::new(),
            tags: Vec::new(),
        })
        .collect();
    db.store
        .remember_entries(feed.id, &folded, Utc::now())
        .await?;
    for entry in db.store.due_entries(feed.id, Utc::now(), 100).await? {
        db.store
            .record_entry_attempt(entry.id, &EntryAttempt::stored(0, Utc::now()))
            .await?;
    }
    assert_eq!(
        db.store.count_entries(feed.id, EntryState::Stored).await?,
        10
    );

    farm.route("/same.xml", same_guid_feed(&farm, 1..=10));
    let (upgraded, reports) = poll(&ctx).await?;
    assert_eq!(
        (upgraded.new_articles, upgraded.failed_articles),
        (9, 0),
        "{reports:#?}"
    );
    assert_eq!(common::distinct_articles(&db.store).await?.len(), 10);
    for n in 1..=10 {
        assert_eq!(farm.hits(&format!("/a/{n}.html")), 1, "story {n}");
    }
    let (again, _) = poll(&ctx).await?;
    assert_eq!(again.new_articles, 0);
    Ok(())
}

/// An Atom summary of `type="html"` carries a script and an event handler, and the author's
/// name is nothing but a script: the stored summary is sanitized like the article, its plain
/// text stored beside it (and exported), and the author is no one rather than "".
async fn feed_summaries_are_stored_sanitized_with_their_text(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    serve_article(&farm, 1, false);
    let atom = format!(
        r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>Scripted</title><id>urn:s</id>
<updated>2026-11-01T00:00:00Z</updated>
<entry><title>Story number 1</title><id>urn:s:1</id><link href="{}"/>
<updated>2026-11-01T00:00:00Z</updated>
<author><name>&lt;script&gt;steal()&lt;/script&gt;</name></author>
<summary type="html">&lt;p onclick="steal()"&gt;Read &lt;b&gt;this&lt;/b&gt;&lt;/p&gt;&lt;script&gt;steal()&lt;/script&gt;&lt;a href="javascript:steal()"&gt;now&lt;/a&gt;</summary>
</entry></feed>"#,
        farm.url("/a/1.html")
    );
    farm.route("/s.xml", farm::ok("application/atom+xml", atom.into()));
    let ctx = daemon::prepare(config(&db, &[("scripted", farm.url("/s.xml"))]).parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 1, "{reports:#?}");
    let id = common::distinct_articles(&db.store).await?[0].id;
    let record = db.store.article_record(id).await?.context("stored")?;
    let stored = record.summary.as_deref().context("a summary")?;
    for word in ["script", "steal", "onclick", "javascript"] {
        assert!(!stored.contains(word), "{word} in {stored}");
    }
    assert!(stored.contains("<b>this</b>"), "{stored}");
    assert_eq!(record.summary_text.as_deref(), Some("Read this\nnow"));
    let exported = serde_json::to_value(&record)?;
    assert_eq!(exported["summary_text"], "Read this\nnow");
    assert_ne!(record.author.as_deref(), Some(""));
    assert_ne!(record.metadata.author_source.as_deref(), Some("feed"));
    let served = serde_json::to_value(db.store.article(id).await?.context("stored")?)?;
    assert_eq!(
        served["summary_text"], "Read this\nnow",
        "the API's article JSON"
    );
    Ok(())
}

/// Summaries are HTML (an Atom text summary escaped: `AT&amp;T`); a `text:` rule reads their
/// words, as a person does.
async fn a_text_rule_reads_the_words_of_a_summary_not_its_markup(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=3 {
        serve_article(&farm, n, false);
    }
    let entry = |n: usize, summary: &str| {
        format!(
            r#"<entry><title>Story number {n}</title><id>urn:t:{n}</id><link href="{}"/>
<updated>2026-11-01T00:00:00Z</updated>{summary}</entry>"#,
            farm.url(&format!("/a/{n}.html"))
        )
    };
    let atom = format!(
        r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>Rules</title><id>urn:t</id>
<updated>2026-11-01T00:00:00Z</updated>{}{}{}</feed>"#,
        entry(1, "<summary>AT&amp;T raises prices</summary>"),
        entry(
            2,
            r#"<summary type="html">&lt;b class="ad"&gt;Sponsored&lt;/b&gt;</summary>"#
        ),
        entry(3, "<summary>Nothing to see</summary>"),
    );
    farm.route("/t.xml", farm::ok("application/atom+xml", atom.into()));
    let ctx = daemon::prepare(
        config(&db, &[("rules", farm.url("/t.xml"))])
            .feed_set("block", vec!["text:AT&T", "text:^Sponsored$"])
            .parse()?,
    )
    .await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(
        (summary.new_articles, summary.blocked),
        (1, 2),
        "{reports:#?}"
    );
    assert_eq!(farm.hits("/a/3.html"), 1);
    Ok(())
}

/// An RSS document of one item with an author and a date of its own.
fn rss_item(title: &str, url: &str, guid: &str, author: &str, date: &str) -> Vec<u8> {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\
         <channel><title>Farm RSS</title><link>http://farm.example/</link>\
         <item><title>{title}</title><link>{url}</link><guid isPermaLink=\"false\">{guid}</guid>\
         <dc:creator>{author}</dc:creator><pubDate>{date}</pubDate></item></channel></rss>"
    )
    .into_bytes()
}

/// A hostile feed on another host lists the real site's page (with a tracking parameter)
/// under a fake title, author and date, and is polled first: the site's own feed still lists
/// the article with its own fields, which are the article's own; purging the hostile feed
/// keeps the article, and it is not downloaded again.
async fn a_feed_listing_another_sites_page_takes_nothing_from_that_sites_feed(
    db: TestDb,
) -> anyhow::Result<()> {
    use chrono::Datelike as _;
    let site = Farm::start().await?;
    let squatter = Farm::start_on("127.0.0.2").await?;
    serve_article(&site, 1, false);
    let page = site.url("/a/1.html");
    let (title, author) = ("Council approves budget", "Ann Reporter");
    let (fake_title, fake_author) = ("FAKE: CEO arrested", "Fake Author");
    site.route(
        "/feed.xml",
        farm::ok(
            "application/rss+xml",
            rss_item(
                title,
                &page,
                "site-1",
                author,
                "Tue, 03 Nov 2026 09:00:00 GMT",
            ),
        ),
    );
    squatter.route(
        "/feed.xml",
        farm::ok(
            "application/rss+xml",
            rss_item(
                fake_title,
                &format!("{page}?utm_source=x"),
                "squat-1",
                fake_author,
                "Mon, 01 Jan 1990 00:00:00 GMT",
            ),
        ),
    );
    let squatter_feed = ("squatter", squatter.url("/feed.xml"));
    let site_feed = ("realsite", site.url("/feed.xml"));
    let hostile_first =
        daemon::prepare(config(&db, std::slice::from_ref(&squatter_feed)).parse()?).await?;
    poll(&hostile_first).await?;
    let both = daemon::prepare(config(&db, &[squatter_feed, site_feed.clone()]).parse()?).await?;
    poll(&both).await?;

    let listed = |feed: &'static str| {
        let store = &db.store;
        async move {
            let filter = ArticleFilter {
                feed: Some(feed.to_string()),
                limit: 10,
                ..Default::default()
            };
            anyhow::Ok(store.list_articles(&filter).await?)
        }
    };
    let in_site = listed("realsite").await?;
    assert_eq!(in_site.len(), 1, "the site's feed lists its article");
    assert_eq!(in_site[0].title, title);
    assert_ne!(in_site[0].author.as_deref(), Some(fake_author));
    assert_eq!(in_site[0].published_at.map(|at| at.year()), Some(2026));
    let in_squatter = listed("squatter").await?;
    assert_eq!(in_squatter.len(), 1);
    assert_eq!(in_squatter[0].id, in_site[0].id, "stored once");
    assert_eq!(in_squatter[0].title, fake_title);
    let article = db.store.article(in_site[0].id).await?.context("stored")?;
    assert_eq!(
        (article.feed.as_str(), article.title.as_str()),
        ("realsite", title)
    );
    assert_ne!(article.author.as_deref(), Some(fake_author));
    assert_eq!(article.published_at.map(|at| at.year()), Some(2026));
    assert_eq!(site.hits("/a/1.html"), 1);

    let purged = db.store.purge_feed("squatter").await?.context("purged")?;
    assert_eq!(purged.articles, 0, "the site's feed lists it");
    let in_site = listed("realsite").await?;
    assert_eq!(in_site.len(), 1);
    assert_eq!(in_site[0].title, title);
    let site_only = daemon::prepare(config(&db, &[site_feed]).parse()?).await?;
    let (again, _) = poll(&site_only).await?;
    assert_eq!(again.new_articles, 0);
    assert_eq!(site.hits("/a/1.html"), 1, "not downloaded again");
    let feed = db.store.feed_by_name("realsite").await?.context("feed")?;
    assert_eq!(feed.articles, 1);
    Ok(())
}
