//! The pipeline acts on each page's verdict: a page that is not an article is never stored
//! from the page (a failure whose kind is the verdict), the feed entry's own text is stored
//! instead when it has enough words (`extractor = feed`, the page's verdict kept), and a page
//! never had is stored from that text once it is given up. End to end on a loopback farm,
//! `poll_once`, both databases; `export` through the real binary.

use crate::common;

use anyhow::Context as _;
use common::farm::{self, Farm, Route};
use common::{TestConfig, TestDb, poll};
use gleaner::daemon;
use gleaner::store::testing::StoreTesting as _;
use gleaner::store::{Article, ArticleFilter, Failure, Store};

on_both_databases!(
    pages_that_are_not_articles_fail_by_their_verdict_or_give_way_to_the_feeds_text,
    a_page_never_had_is_stored_from_the_feeds_text_once_given_up,
    a_bot_challenge_is_retried_and_its_feed_text_stored_as_blocked,
    a_teaser_is_marked_and_gives_way_to_a_longer_feed_text,
    a_video_entry_whose_watch_page_needs_javascript_is_stored_from_its_media_description,
    a_feed_whose_content_is_the_feed_stores_short_posts_without_reading_their_pages,
    a_feed_whose_content_is_the_page_never_stores_the_entry_text_in_its_place,
    a_titleless_post_whose_page_needs_javascript_is_stored_from_its_text,
    a_podcast_episode_keeps_its_audio_enclosure_duration_and_image,
    an_episode_page_of_one_line_gives_way_to_the_episodes_show_notes,
    episodes_are_stored_from_their_transcripts_in_each_format,
);

/// Verdicts that are not an article: what a failure's kind or a feed-stored article's verdict
/// may be, whatever the rules say of an application shell.
const NOT_ARTICLE: [&str; 6] = [
    "blocked",
    "needs_javascript",
    "not_found",
    "consent",
    "login",
    "not_article",
];

/// An application shell: nothing of its own without JavaScript (not even a `<title>`, which a
/// line-based extractor would take for a text).
const APP_SHELL: &str = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\
    <div id=\"root\"></div>\
    <noscript>You need to enable JavaScript to run this app.</noscript>\
    <script src=\"/static/js/main.js\"></script></body></html>";

/// A bot challenge as Cloudflare serves it.
const CHALLENGE: &str = "<!DOCTYPE html><html lang=\"en-US\"><head><title>Just a moment...</title>\
    <meta http-equiv=\"refresh\" content=\"35\"></head><body>\
    <div class=\"main-wrapper\" role=\"main\"><div class=\"main-content\">\
    <h1 class=\"zone-name-title h1\">news.example</h1>\
    <h2 class=\"h2\" id=\"challenge-running\">Checking if the site connection is secure</h2>\
    <noscript><div id=\"challenge-error-title\">Enable JavaScript and cookies to continue</div></noscript>\
    <div id=\"challenge-body-text\" class=\"core-msg spacer\">news.example needs to review the \
    security of your connection before proceeding.</div></div></div>\
    <div class=\"footer\" role=\"contentinfo\"><div class=\"ray-id\">Ray ID: <code>7d1c2f3a4b5c6d7e</code></div>\
    <div class=\"text-center\" id=\"footer-text\">Performance &amp; security by Cloudflare</div></div>\
    <script>(function(){window._cf_chl_opt={cvId: '2'}})();</script></body></html>";

/// A feed entry: its page's path, and the full content the feed carries, if any.
struct Entry {
    path: &'static str,
    content: Option<String>,
}

/// An RSS feed whose items carry `content:encoded`.
fn rss(farm: &Farm, entries: &[Entry]) -> String {
    let items: String = entries
        .iter()
        .map(|entry| {
            let content = entry
                .content
                .as_ref()
                .map(|c| format!("<content:encoded><![CDATA[{c}]]></content:encoded>"))
                .unwrap_or_default();
            format!(
                "<item><title>Story {path}</title><link>{url}</link><guid>{url}</guid>\
                 <description>A short summary.</description>{content}</item>",
                path = entry.path,
                url = farm.url(entry.path),
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" \
         xmlns:content=\"http://purl.org/rss/1.0/modules/content/\"><channel>\
         <title>Verdicts</title><link>http://farm.example/</link>{items}</channel></rss>"
    )
}

/// The feed's full text of a story: `words` words in paragraphs, and an image.
fn full_text(story: &str, words: usize) -> String {
    let paragraphs: String = (0..words.div_ceil(25))
        .map(|p| {
            let words: String = (0..25.min(words - p * 25))
                .map(|w| format!("{story}word{p}x{w} "))
                .collect();
            format!("<p>{}</p>", words.trim_end())
        })
        .collect();
    format!("{paragraphs}<figure><img src=\"/img/{story}.png\" alt=\"A photo\"></figure>")
}

fn config(db: &TestDb, farm: &Farm) -> TestConfig {
    TestConfig::new(db)
        .loopback_farm()
        .feed("verdicts", farm.url("/rss.xml"))
        .set("fetch", "article_retry_seconds", 0)
        .set("fetch", "article_retries", 2)
}

async fn article_at(store: &Store, farm: &Farm, path: &str) -> anyhow::Result<Option<Article>> {
    let rows = store
        .list_articles(&ArticleFilter {
            limit: 100,
            ..Default::default()
        })
        .await?;
    let Some(row) = rows.iter().find(|a| a.url == farm.url(path)) else {
        return Ok(None);
    };
    Ok(store.article(row.id).await?)
}

async fn failures_of(store: &Store, farm: &Farm, path: &str) -> anyhow::Result<Vec<Failure>> {
    let url = farm.url(path);
    Ok(store
        .recent_failures(100)
        .await?
        .into_iter()
        .filter(|f| f.article_url.as_deref() == Some(url.as_str()))
        .collect())
}

async fn pages_that_are_not_articles_fail_by_their_verdict_or_give_way_to_the_feeds_text(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.html(
        "/a/good",
        &farm::article_page("Story /a/good", &farm::paragraphs(1), None),
    );
    for path in ["/a/shell-full", "/a/shell-bare", "/a/shell-short"] {
        farm.html(path, APP_SHELL);
    }
    farm.route("/img/full.png", farm::ok("image/png", farm::png()));
    let entries = [
        Entry {
            path: "/a/good",
            content: Some(full_text("good", 150)),
        },
        Entry {
            path: "/a/shell-full",
            content: Some(full_text("full", 150)),
        },
        Entry {
            path: "/a/shell-bare",
            content: None,
        },
        Entry {
            path: "/a/shell-short",
            content: Some(full_text("short", 40)),
        },
    ];
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", rss(&farm, &entries).into()),
    );
    let ctx = daemon::prepare(config(&db, &farm).parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(
        (summary.new_articles, summary.failed_articles),
        (2, 2),
        "{reports:#?}"
    );

    // An article page is stored from the page, though the feed has its text too.
    let good = article_at(&db.store, &farm, "/a/good")
        .await?
        .context("the article page is stored")?;
    assert_ne!(good.extractor, "feed");
    assert_eq!(good.verdict, "article");
    assert!(good.quality.is_some());

    // A page that is not an article gives way to the entry's own text, images and all.
    let full = article_at(&db.store, &farm, "/a/shell-full")
        .await?
        .context("stored from the feed's text")?;
    assert_eq!(full.extractor, "feed");
    assert!(
        NOT_ARTICLE.contains(&full.verdict.as_str()),
        "{}",
        full.verdict
    );
    assert!(full.word_count >= 150, "{}", full.word_count);
    assert!(
        full.text.starts_with("fullword0x0 fullword0x1"),
        "{}",
        full.text
    );
    assert!(!full.html.contains("<script"));
    let images = db.store.article_images(full.id).await?;
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].url, farm.url("/img/full.png"));
    assert!(images[0].sha256.is_some(), "the feed's image is downloaded");
    assert!(
        failures_of(&db.store, &farm, "/a/shell-full")
            .await?
            .is_empty()
    );

    // Without enough text of its own, the entry fails by the page's verdict, is tried once
    // more, and given up.
    for path in ["/a/shell-bare", "/a/shell-short"] {
        assert!(
            article_at(&db.store, &farm, path).await?.is_none(),
            "{path}"
        );
        let failures = failures_of(&db.store, &farm, path).await?;
        assert_eq!(failures.len(), 1, "{path}: {failures:#?}");
        assert_eq!(failures[0].stage, "extract");
        assert!(
            NOT_ARTICLE.contains(&failures[0].kind.as_str()),
            "{path}: {}",
            failures[0].kind
        );
    }
    for _ in 0..3 {
        poll(&ctx).await?;
    }
    assert_eq!(farm.hits("/a/shell-bare"), 2);
    let kinds: Vec<String> = failures_of(&db.store, &farm, "/a/shell-bare")
        .await?
        .into_iter()
        .map(|f| f.kind)
        .collect();
    assert_eq!(kinds.len(), 3, "two attempts, then given up: {kinds:?}");
    assert_eq!(kinds[0], "given_up");

    let metrics = gleaner::metrics::render().finish();
    let verdict = &full.verdict;
    assert!(
        metrics.contains(&format!(
            "gleaner_articles_from_feed_text_total{{verdict=\"{verdict}\"}}"
        )),
        "{metrics}"
    );
    assert!(
        metrics.contains(&format!(
            "gleaner_failures_total{{stage=\"extract\",kind=\"{}\"}}",
            kinds[1]
        )),
        "{metrics}"
    );

    // `export` and `articles show` say where the text came from.
    let dir = tempfile::tempdir()?;
    config(&db, &farm).write(dir.path())?;
    let output = common::gleaner_in(dir.path()).arg("export").output()?;
    assert!(output.status.success(), "{output:?}");
    let exported: Vec<serde_json::Value> = String::from_utf8(output.stdout)?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let of = |path: &str| {
        exported
            .iter()
            .find(|a| a["url"] == farm.url(path).as_str())
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(of("/a/shell-full")["extractor"], "feed");
    assert_eq!(of("/a/shell-full")["verdict"], full.verdict.as_str());
    assert_eq!(of("/a/shell-full")["quality"], 0.9);
    assert_eq!(of("/a/good")["verdict"], "article");
    assert!(of("/a/good")["quality"].is_number());
    let output = common::gleaner_in(dir.path())
        .args(["articles", "show", &full.id.to_string()])
        .output()?;
    let shown = String::from_utf8(output.stdout)?;
    assert!(
        shown.contains(&format!("the feed's own text (page: {verdict})")),
        "{shown}"
    );
    let output = common::gleaner_in(dir.path())
        .args(["articles", "list"])
        .output()?;
    let listed = String::from_utf8(output.stdout)?;
    assert!(
        listed.contains(&format!("[feed: {verdict}] Story /a/shell-full")),
        "{listed}"
    );
    // The feed's own text is given 0.9: above a bound of 0.9, it is left out.
    let output = common::gleaner_in(dir.path())
        .args(["export", "--min-quality", "0.95"])
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let urls = String::from_utf8(output.stdout)?;
    assert!(!urls.contains(&farm.url("/a/shell-full")), "{urls}");
    let output = common::gleaner_in(dir.path())
        .args(["articles", "list", "--min-quality", "1.5"])
        .output()?;
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    Ok(())
}

async fn a_page_never_had_is_stored_from_the_feeds_text_once_given_up(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let forbidden = Route::Status {
        status: 403,
        headers: vec![],
        body: "Access denied".into(),
    };
    farm.route("/a/walled", forbidden.clone());
    farm.route("/a/walled-bare", forbidden);
    farm.route(
        "/a/gone",
        Route::Status {
            status: 404,
            headers: vec![],
            body: "Not found".into(),
        },
    );
    farm.route("/img/walled.png", farm::ok("image/png", farm::png()));
    farm.route("/img/gone.png", farm::ok("image/png", farm::png()));
    let entries = [
        Entry {
            path: "/a/walled",
            content: Some(full_text("walled", 120)),
        },
        Entry {
            path: "/a/walled-bare",
            content: None,
        },
        Entry {
            path: "/a/gone",
            content: Some(full_text("gone", 120)),
        },
    ];
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", rss(&farm, &entries).into()),
    );
    let ctx = daemon::prepare(config(&db, &farm).parse()?).await?;
    // `article_retries` = 2: three attempts, then the entry is given up.
    for attempt in 1..=3 {
        let (summary, reports) = poll(&ctx).await?;
        let stored = if attempt == 3 { 2 } else { 0 };
        assert_eq!(
            summary.new_articles, stored,
            "attempt {attempt}: {reports:#?}"
        );
        let walled = article_at(&db.store, &farm, "/a/walled").await?;
        assert_eq!(walled.is_some(), attempt == 3, "attempt {attempt}");
    }
    assert_eq!(farm.hits("/a/walled"), 3);
    let walled = article_at(&db.store, &farm, "/a/walled")
        .await?
        .context("stored")?;
    assert_eq!(
        (walled.extractor.as_str(), walled.verdict.as_str()),
        ("feed", "blocked")
    );
    assert!(walled.word_count >= 120, "{}", walled.word_count);
    let gone = article_at(&db.store, &farm, "/a/gone")
        .await?
        .context("stored")?;
    assert_eq!(gone.verdict, "not_found");
    assert!(
        article_at(&db.store, &farm, "/a/walled-bare")
            .await?
            .is_none()
    );
    let kinds = |failures: Vec<Failure>| failures.into_iter().map(|f| f.kind).collect::<Vec<_>>();
    assert_eq!(
        kinds(failures_of(&db.store, &farm, "/a/walled").await?),
        ["http_status"; 3],
        "stored instead of given up"
    );
    assert_eq!(
        kinds(failures_of(&db.store, &farm, "/a/walled-bare").await?)[0],
        "given_up"
    );
    for _ in 0..2 {
        poll(&ctx).await?;
    }
    assert_eq!(farm.hits("/a/walled"), 3, "settled");
    Ok(())
}

async fn a_bot_challenge_is_retried_and_its_feed_text_stored_as_blocked(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.html("/a/challenge-full", CHALLENGE);
    farm.html("/a/challenge-bare", CHALLENGE);
    farm.route("/img/challenge.png", farm::ok("image/png", farm::png()));
    let entries = [
        Entry {
            path: "/a/challenge-full",
            content: Some(full_text("challenge", 200)),
        },
        Entry {
            path: "/a/challenge-bare",
            content: None,
        },
    ];
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", rss(&farm, &entries).into()),
    );
    let ctx = daemon::prepare(config(&db, &farm).parse()?).await?;
    poll(&ctx).await?;
    let full = article_at(&db.store, &farm, "/a/challenge-full")
        .await?
        .context("stored from the feed's text")?;
    assert_eq!(
        (full.extractor.as_str(), full.verdict.as_str()),
        ("feed", "blocked")
    );
    assert!(
        article_at(&db.store, &farm, "/a/challenge-bare")
            .await?
            .is_none()
    );
    let failures = failures_of(&db.store, &farm, "/a/challenge-bare").await?;
    assert_eq!(
        (failures[0].stage.as_str(), failures[0].kind.as_str()),
        ("extract", "blocked")
    );
    // A challenge may clear: retried as any failure is (`article_retries` = 2).
    for _ in 0..4 {
        poll(&ctx).await?;
    }
    assert_eq!(farm.hits("/a/challenge-bare"), 3);
    Ok(())
}

async fn a_teaser_is_marked_and_gives_way_to_a_longer_feed_text(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    // A lead of three paragraphs, then a subscription prompt.
    let teaser = |title: &str| {
        let lead: String = farm::paragraphs(7)[..3]
            .iter()
            .map(|p| format!("<p>{p}</p>"))
            .collect();
        format!(
            "<!DOCTYPE html><html><head><title>{title} | Example News</title></head><body>\
             <main><article><h1>{title}</h1><div class=\"story-body\">{lead}</div>\
             <div class=\"paywall-prompt\"><h2>Subscribe to continue reading</h2>\
             <p>Get unlimited access to Example News for 1 euro for the first month.</p>\
             <p><a href=\"/subscribe\">Subscribe now</a></p>\
             <p>Already a subscriber? <a href=\"/login\">Log in</a></p></div>\
             </article></main></body></html>"
        )
    };
    farm.html("/a/teaser-full", &teaser("Story /a/teaser-full"));
    farm.html("/a/teaser-bare", &teaser("Story /a/teaser-bare"));
    farm.route("/img/teaser.png", farm::ok("image/png", farm::png()));
    let entries = [
        Entry {
            path: "/a/teaser-full",
            content: Some(full_text("teaser", 300)),
        },
        Entry {
            path: "/a/teaser-bare",
            content: None,
        },
    ];
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", rss(&farm, &entries).into()),
    );
    let ctx = daemon::prepare(config(&db, &farm).parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 2, "{reports:#?}");
    let full = article_at(&db.store, &farm, "/a/teaser-full")
        .await?
        .context("stored")?;
    assert_eq!(
        (full.extractor.as_str(), full.verdict.as_str()),
        ("feed", "teaser")
    );
    let bare = article_at(&db.store, &farm, "/a/teaser-bare")
        .await?
        .context("stored")?;
    assert_ne!(bare.extractor, "feed");
    assert_eq!(bare.verdict, "teaser");
    Ok(())
}

/// A video feed in YouTube's form: each entry's text is only in its `media:group`'s
/// `media:description` (204 words), and its watch page needs JavaScript.
async fn a_video_entry_whose_watch_page_needs_javascript_is_stored_from_its_media_description(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.html("/watch/v1", APP_SHELL);
    let words: String = (0..204).map(|w| format!("videoword{w} ")).collect();
    let feed = format!(
        "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\" \
         xmlns:yt=\"http://www.youtube.com/xml/schemas/2015\" \
         xmlns:media=\"http://search.yahoo.com/mrss/\"><title>A channel</title>\
         <entry><id>yt:video:v1</id><yt:videoId>v1</yt:videoId><title>Truing a wheel</title>\
         <link rel=\"alternate\" href=\"{url}\"/><published>2026-11-01T10:00:00+00:00</published>\
         <media:group><media:title>Truing a wheel</media:title>\
         <media:content url=\"{url}/embed\" type=\"application/x-shockwave-flash\"/>\
         <media:thumbnail url=\"{url}/thumb.jpg\" width=\"480\" height=\"360\"/>\
         <media:description>{text}</media:description></media:group></entry></feed>",
        url = farm.url("/watch/v1"),
        text = words.trim_end(),
    );
    farm.route("/rss.xml", farm::ok("application/atom+xml", feed.into()));
    let ctx = daemon::prepare(config(&db, &farm).parse()?).await?;
    poll(&ctx).await?;
    let video = article_at(&db.store, &farm, "/watch/v1")
        .await?
        .context("stored from the entry's media description")?;
    assert_eq!(video.extractor.as_str(), "feed");
    assert_eq!(video.kind, "video");
    assert_eq!(video.enclosures.len(), 1, "{:?}", video.enclosures);
    assert_eq!(
        video.enclosures[0].thumbnail_url.as_deref(),
        Some(format!("{}/thumb.jpg", farm.url("/watch/v1")).as_str())
    );
    assert!(
        video.text.contains("videoword0 videoword1"),
        "{}",
        video.text
    );
    assert!(video.text.contains("videoword203"), "{}", video.text);
    assert!(failures_of(&db.store, &farm, "/watch/v1").await?.is_empty());
    Ok(())
}

async fn a_feed_whose_content_is_the_feed_stores_short_posts_without_reading_their_pages(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.html("/post/1", APP_SHELL);
    let entries = [Entry {
        path: "/post/1",
        content: Some("<p>Twelve words are a whole post on a site of short posts.</p>".into()),
    }];
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", rss(&farm, &entries).into()),
    );
    let ctx = daemon::prepare(config(&db, &farm).feed_set("content", "feed").parse()?).await?;
    poll(&ctx).await?;
    let post = article_at(&db.store, &farm, "/post/1")
        .await?
        .context("stored from the entry")?;
    assert_eq!(
        (post.extractor.as_str(), post.verdict.as_str()),
        ("feed", "article")
    );
    assert!(
        post.text.contains("a whole post on a site of short posts"),
        "{}",
        post.text
    );
    assert_eq!(farm.hits("/post/1"), 0, "the page is never read");
    Ok(())
}

async fn a_feed_whose_content_is_the_page_never_stores_the_entry_text_in_its_place(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.html("/a/shell", APP_SHELL);
    farm.route("/img/shell.png", farm::ok("image/png", farm::png()));
    let entries = [Entry {
        path: "/a/shell",
        content: Some(full_text("shell", 200)),
    }];
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", rss(&farm, &entries).into()),
    );
    let ctx = daemon::prepare(config(&db, &farm).feed_set("content", "page").parse()?).await?;
    for _ in 0..4 {
        poll(&ctx).await?;
    }
    assert!(article_at(&db.store, &farm, "/a/shell").await?.is_none());
    let kinds: Vec<String> = failures_of(&db.store, &farm, "/a/shell")
        .await?
        .into_iter()
        .map(|failure| failure.kind)
        .collect();
    assert!(
        kinds.iter().any(|kind| kind == "needs_javascript"),
        "{kinds:?}"
    );
    assert!(kinds.iter().any(|kind| kind == "given_up"), "{kinds:?}");
    Ok(())
}

/// A microblog's feed, as Mastodon writes it: items without a title, each description the
/// whole post, each link a page that needs JavaScript.
async fn a_titleless_post_whose_page_needs_javascript_is_stored_from_its_text(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.html("/@ann/1", APP_SHELL);
    let feed = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>ann</title>\
         <link>{home}</link><item><guid>{url}</guid><link>{url}</link>\
         <pubDate>Sun, 01 Nov 2026 10:00:00 +0000</pubDate>\
         <description>&lt;p&gt;Trued the rear wheel tonight: three spokes were loose by a \
         half turn.&lt;/p&gt;</description></item></channel></rss>",
        home = farm.url("/@ann"),
        url = farm.url("/@ann/1"),
    );
    farm.route("/rss.xml", farm::ok("application/rss+xml", feed.into()));
    let ctx = daemon::prepare(config(&db, &farm).parse()?).await?;
    poll(&ctx).await?;
    let post = article_at(&db.store, &farm, "/@ann/1")
        .await?
        .context("the post is stored from its own text")?;
    assert_eq!(post.extractor.as_str(), "feed");
    assert_eq!(post.kind, "post");
    assert!(
        post.text.contains("three spokes were loose"),
        "{}",
        post.text
    );
    assert!(failures_of(&db.store, &farm, "/@ann/1").await?.is_empty());
    Ok(())
}

/// A podcast's RSS: the episode's audio `<enclosure>`, its `itunes:duration` and
/// `itunes:image`, and show notes long enough to stand in for a page that needs JavaScript.
/// (`feed-rs` keeps an item's iTunes tags only beside an `itunes:summary`, which most
/// podcasts write.)
async fn a_podcast_episode_keeps_its_audio_enclosure_duration_and_image(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.html("/episodes/12", APP_SHELL);
    let notes: String = (0..120).map(|w| format!("noteword{w} ")).collect();
    let feed = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" \
         xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel>\
         <title>Shop Talk</title><link>{home}</link><item><title>Episode 12: wheels</title>\
         <link>{url}</link><guid>{url}</guid><description>{notes}</description>\
         <itunes:summary>{notes}</itunes:summary>\
         <enclosure url=\"{url}.mp3\" type=\"audio/mpeg\" length=\"31415926\"/>\
         <itunes:duration>00:42:10</itunes:duration>\
         <itunes:image href=\"{url}.jpg\"/></item></channel></rss>",
        home = farm.url("/"),
        url = farm.url("/episodes/12"),
        notes = notes.trim_end(),
    );
    farm.route("/rss.xml", farm::ok("application/rss+xml", feed.into()));
    let ctx = daemon::prepare(config(&db, &farm).parse()?).await?;
    poll(&ctx).await?;
    let episode = article_at(&db.store, &farm, "/episodes/12")
        .await?
        .context("stored from its show notes")?;
    assert_eq!(episode.kind, "audio");
    let audio = episode.enclosures.first().context("its enclosure")?;
    assert_eq!(audio.url, format!("{}.mp3", farm.url("/episodes/12")));
    assert_eq!(audio.media_type.as_deref(), Some("audio/mpeg"));
    assert_eq!(audio.length, Some(31_415_926));
    assert_eq!(
        audio.duration_seconds,
        Some(42 * 60 + 10),
        "{:?}",
        episode.enclosures
    );
    Ok(())
}

/// An episode whose page is a player and one line ("Listen to the episode."), an article by
/// its structure, and whose show notes (60 words, under what a page's stand-in needs) are the
/// episode's text: the notes are stored, and the page's one line is not.
async fn an_episode_page_of_one_line_gives_way_to_the_episodes_show_notes(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.html(
        "/episodes/13",
        "<!DOCTYPE html><html><head><title>Episode 13: spokes | Shop Talk</title></head><body>\
         <main><article><h1>Episode 13: spokes</h1><p>Listen to the episode.</p></article>\
         </main></body></html>",
    );
    let notes: String = (0..60).map(|w| format!("shownote{w} ")).collect();
    let feed = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" \
         xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel>\
         <title>Shop Talk</title><link>{home}</link><item><title>Episode 13: spokes</title>\
         <link>{url}</link><guid>{url}</guid><description>{notes}</description>\
         <enclosure url=\"{url}.mp3\" type=\"audio/mpeg\" length=\"27182818\"/>\
         </item></channel></rss>",
        home = farm.url("/"),
        url = farm.url("/episodes/13"),
        notes = notes.trim_end(),
    );
    farm.route("/rss.xml", farm::ok("application/rss+xml", feed.into()));
    let ctx = daemon::prepare(config(&db, &farm).parse()?).await?;
    poll(&ctx).await?;
    let episode = article_at(&db.store, &farm, "/episodes/13")
        .await?
        .context("stored")?;
    assert_eq!(episode.kind, "audio");
    assert_eq!(episode.extractor.as_str(), "feed");
    assert!(
        episode.text.contains("shownote0 shownote1"),
        "{}",
        episode.text
    );
    assert!(episode.text.contains("shownote59"), "{}", episode.text);
    assert!(
        !episode.text.contains("Listen to the episode"),
        "{}",
        episode.text
    );
    assert!(
        failures_of(&db.store, &farm, "/episodes/13")
            .await?
            .is_empty()
    );
    Ok(())
}

/// A podcast whose episodes each name a `podcast:transcript`, one per format (SubRip, WebVTT,
/// the Podcasting 2.0 JSON, HTML), and one whose transcript answers 404; every episode page is
/// an application shell. Each episode with a transcript is stored from it (cues joined, timings
/// and numbers dropped), its show notes its summary; the one without is stored from its notes.
async fn episodes_are_stored_from_their_transcripts_in_each_format(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let transcripts: [(&str, &str, &str); 4] = [
        (
            "srt",
            "application/x-subrip",
            "1\n00:00:01,000 --> 00:00:03,000\nWelcome to episode one.\n\n\
             2\n00:00:03,100 --> 00:00:05,000\nToday we lace a wheel.\n",
        ),
        (
            "vtt",
            "text/vtt",
            "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Ann>Welcome to episode two.\n\n\
             00:00:03.100 --> 00:00:05.000\n<v Ann>Today we true a wheel.\n",
        ),
        (
            "json",
            "application/json",
            r#"{"version":"1.0.0","segments":[{"speaker":"Ann","startTime":1.0,"endTime":3.0,"body":"Welcome to episode three."},{"speaker":"Ann","startTime":3.1,"endTime":5.0,"body":"Today we tension a wheel."}]}"#,
        ),
        (
            "html",
            "text/html",
            "<html><body><p><time>00:00:01</time></p><p>Welcome to episode four.</p>\
             <p>Today we dish a wheel.</p></body></html>",
        ),
    ];
    let mut items = String::new();
    for (n, (extension, media_type, body)) in transcripts.iter().enumerate() {
        let episode = format!("/episodes/{}", n + 1);
        farm.html(&episode, APP_SHELL);
        let transcript = format!("{episode}/transcript.{extension}");
        farm.route(&transcript, farm::ok(media_type, body.as_bytes().to_vec()));
        items.push_str(&format!(
            "<item><title>Episode {number}</title><link>{url}</link><guid>{url}</guid>\
             <description>Show notes of episode {number}.</description>\
             <enclosure url=\"{url}.mp3\" type=\"audio/mpeg\" length=\"1000\"/>\
             <podcast:transcript url=\"{transcript_url}\" type=\"{media_type}\"/></item>",
            number = n + 1,
            url = farm.url(&episode),
            transcript_url = farm.url(&transcript),
        ));
    }
    farm.html("/episodes/5", APP_SHELL);
    items.push_str(&format!(
        "<item><title>Episode 5</title><link>{url}</link><guid>{url}</guid>\
         <description>Show notes of episode 5.</description>\
         <enclosure url=\"{url}.mp3\" type=\"audio/mpeg\" length=\"1000\"/>\
         <podcast:transcript url=\"{url}/missing.vtt\" type=\"text/vtt\"/></item>",
        url = farm.url("/episodes/5"),
    ));
    let feed = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" \
         xmlns:podcast=\"https://podcastindex.org/namespace/1.0\"><channel>\
         <title>Wheel Talk</title><link>{home}</link>{items}</channel></rss>",
        home = farm.url("/"),
    );
    farm.route("/rss.xml", farm::ok("application/rss+xml", feed.into()));
    let ctx = daemon::prepare(config(&db, &farm).parse()?).await?;
    poll(&ctx).await?;
    let ordinals = ["one", "two", "three", "four"];
    let verbs = ["lace", "true", "tension", "dish"];
    for n in 0..4 {
        let episode = article_at(&db.store, &farm, &format!("/episodes/{}", n + 1))
            .await?
            .with_context(|| format!("episode {} stored", n + 1))?;
        assert_eq!(episode.extractor, "transcript", "episode {}", n + 1);
        assert_eq!(episode.kind, "audio");
        let welcome = format!("Welcome to episode {}.", ordinals[n]);
        let today = format!("Today we {} a wheel.", verbs[n]);
        assert!(
            episode.text.contains(&welcome) && episode.text.contains(&today),
            "episode {}: {}",
            n + 1,
            episode.text
        );
        assert!(
            !episode.text.contains("-->") && !episode.text.contains("00:00"),
            "episode {}: {}",
            n + 1,
            episode.text
        );
        let notes = format!("Show notes of episode {}.", n + 1);
        assert!(
            episode
                .summary_text
                .as_deref()
                .is_some_and(|s| s.contains(&notes)),
            "{:?}",
            episode.summary_text
        );
    }
    let untranscribed = article_at(&db.store, &farm, "/episodes/5")
        .await?
        .context("episode 5 stored from its notes")?;
    assert_eq!(untranscribed.extractor, "feed");
    assert!(untranscribed.text.contains("Show notes of episode 5."));
    Ok(())
}
