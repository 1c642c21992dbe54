//! The web view over HTTP: signed out it shows no data, signing in takes the token once
//! through a form with its CSRF value, and signed in every page shows what the store holds,
//! escaped, under a strict Content-Security-Policy. The real router on 127.0.0.1 port 0;
//! both databases. (`tests/interfaces/web_view_browser.rs` drives the same pages in a browser.)

use crate::api_support;
use crate::common;

use anyhow::Context as _;
use chrono::Utc;
use common::TestDb;
use gleaner::fetch::FetchErrorKind;
use gleaner::store::{
    ArticleMetadata, FailureKind, FeedPoll, NewArticle, NewFailure, PollStatus, Stage, Store,
    Verdict,
};
use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};

on_both_databases!(
    signed_out_the_pages_show_no_data_and_signing_in_takes_the_form,
    signed_in_every_page_shows_the_store_escaped_and_under_the_policy,
    signing_out_needs_the_sessions_form_value,
    without_a_token_the_view_is_open,
    signing_in_over_http2_with_an_origin_is_same_origin,
    a_session_cookie_replayed_after_sign_out_is_no_session,
    a_sign_in_needs_a_value_the_server_signed_and_guesses_are_locked_out,
    an_episode_shows_its_kind_and_its_media_as_links,
    a_search_keeps_to_the_picked_feed_and_page_type,
);

const TOKEN: &str = "reading-token-42";
const HOSTILE_TITLE: &str = "<script>alert(1)</script><img src=x onerror=alert(2)>";

/// A client that shows redirects instead of following them, and keeps no cookies.
fn browser() -> anyhow::Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()?)
}

/// Two feeds, one failing; three articles, one of them with a hostile title; a failure.
async fn fill(store: &Store) -> anyhow::Result<Vec<i64>> {
    let schedule = gleaner::schedule::CronSchedule::parse("*/30 * * * *")?;
    let feeds = store
        .sync_feeds(&[
            gleaner::config::FeedConfig::new(
                "harbour-news",
                "http://news.example/feed.xml".parse()?,
                schedule.clone(),
            ),
            gleaner::config::FeedConfig::new(
                "broken-feed",
                "http://broken.example/feed.xml".parse()?,
                schedule,
            ),
        ])
        .await?;
    let id_of = |name: &str| feeds.iter().find(|f| f.name == name).map(|f| f.id);
    let news = id_of("harbour-news").context("harbour-news")?;
    let broken = id_of("broken-feed").context("broken-feed")?;
    store
        .record_feed_poll(
            broken,
            &FeedPoll {
                polled_at: Utc::now(),
                status: PollStatus::Failed(FailureKind::Fetch(FetchErrorKind::HttpStatus)),
                error: Some("HTTP 503 from the feed's server".into()),
                etag: None,
                last_modified: None,
                title: None,
                site_url: None,
                next_due_at: Utc::now() + chrono::Duration::minutes(30),
            },
        )
        .await?;
    store
        .record_failure(&NewFailure {
            feed_id: Some(broken),
            article_url: None,
            stage: Stage::Feed,
            kind: FailureKind::Fetch(FetchErrorKind::HttpStatus),
            message: "HTTP 503 from the feed's server".into(),
        })
        .await?;
    let mut ids = Vec::new();
    for (n, title, text) in [
        (
            1,
            "Harbour bridge reopens",
            "The harbour bridge reopened to traffic on Monday.",
        ),
        (
            2,
            HOSTILE_TITLE,
            "A story whose title tries to run a script.",
        ),
        (
            3,
            "Library hours extended",
            "The central library will open on Sundays.",
        ),
    ] {
        let article = NewArticle {
            feed_id: news,
            guid: Some(format!("story-{n}")),
            url: format!("http://news.example/story/{n}"),
            canonical_url: None,
            title: title.to_string(),
            author: Some("A. Reporter".into()),
            summary: None,
            published_at: None,
            fetched_at: Utc::now(),
            language: Some("en".into()),
            extractor: "cuter".into(),
            confidence: 0.9,
            verdict: Verdict::Article,
            quality: 0.92,
            text: text.to_string(),
            html: format!("<p>{text}</p><p><b>Bold</b> words.</p>"),
            raw_page: None,
            raw_content_type: None,
            images: Vec::new(),
            metadata: ArticleMetadata::default(),
            page_type: Default::default(),
            posts: Vec::new(),
            enclosures: Vec::new(),
            kind: gleaner::store::EntryKind::Article,
            tags: Vec::new(),
        };
        ids.push(store.insert_article(&article).await?.id());
    }
    Ok(ids)
}

/// The `name=value` of a `Set-Cookie` header naming cookie `name`, with its attributes.
fn set_cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find(|value| value.starts_with(&format!("{name}=")))
        .map(str::to_string)
}

/// The value of the hidden `csrf` field of a page's form.
fn csrf_field(html: &str) -> Option<String> {
    let start = html.find("name=\"csrf\" value=\"")? + "name=\"csrf\" value=\"".len();
    let end = html[start..].find('"')?;
    Some(html[start..start + end].to_string())
}

/// Signs in through the form: the session cookie (`gleaner_session=…`).
async fn sign_in(client: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let form = client.get(format!("{base}/ui/login")).send().await?;
    let login_cookie = set_cookie(form.headers(), "gleaner_login").context("login cookie")?;
    let pair = login_cookie
        .split(';')
        .next()
        .context("cookie pair")?
        .to_string();
    let csrf = csrf_field(&form.text().await?).context("csrf field")?;
    let answer = client
        .post(format!("{base}/ui/login"))
        .header(header::COOKIE, pair)
        .form(&[("csrf", csrf.as_str()), ("token", TOKEN)])
        .send()
        .await?;
    anyhow::ensure!(
        answer.status() == StatusCode::SEE_OTHER,
        "{}",
        answer.status()
    );
    let session = set_cookie(answer.headers(), "gleaner_session").context("session cookie")?;
    Ok(session
        .split(';')
        .next()
        .context("cookie pair")?
        .to_string())
}

async fn signed_out_the_pages_show_no_data_and_signing_in_takes_the_form(
    db: TestDb,
) -> anyhow::Result<()> {
    let ids = fill(&db.store).await?;
    let app = api_support::App::spawn(&db.store, Some(TOKEN)).await?;
    let client = browser()?;
    for path in [
        "/ui/".to_string(),
        "/ui/articles".to_string(),
        "/ui/articles?q=harbour".to_string(),
        format!("/ui/articles/{}", ids[0]),
        format!("/ui/articles/{}/raw?format=json", ids[0]),
        "/ui/feeds".to_string(),
        "/ui/failures".to_string(),
    ] {
        let answer = client.get(app.url(&path)).send().await?;
        assert_eq!(answer.status(), StatusCode::SEE_OTHER, "{path}");
        assert_eq!(answer.headers()[header::LOCATION], "/ui/login", "{path}");
        let body = answer.text().await?;
        assert!(!body.contains("Harbour"), "{path}: {body}");
    }
    // A forged or stale session is no session.
    let forged = client
        .get(app.url("/ui/"))
        .header(header::COOKIE, "gleaner_session=1700000000.00ff")
        .send()
        .await?;
    assert_eq!(forged.status(), StatusCode::SEE_OTHER);

    let form = client.get(app.url("/ui/login")).send().await?;
    assert_eq!(form.status(), StatusCode::OK);
    let login_cookie = set_cookie(form.headers(), "gleaner_login").context("login cookie")?;
    assert!(login_cookie.contains("HttpOnly") && login_cookie.contains("SameSite=Strict"));
    let pair = login_cookie.split(';').next().context("pair")?.to_string();
    let csrf = csrf_field(&form.text().await?).context("csrf field")?;

    let post = |cookie: Option<String>, csrf: &str, token: &str, origin: Option<&str>| {
        let mut request = client
            .post(app.url("/ui/login"))
            .form(&[("csrf", csrf), ("token", token)]);
        if let Some(cookie) = cookie {
            request = request.header(header::COOKIE, cookie);
        }
        if let Some(origin) = origin {
            request = request.header(header::ORIGIN, origin);
        }
        request.send()
    };
    let no_cookie = post(None, &csrf, TOKEN, None).await?;
    assert_eq!(
        no_cookie.status(),
        StatusCode::FORBIDDEN,
        "no double submit"
    );
    let other_site = post(
        Some(pair.clone()),
        &csrf,
        TOKEN,
        Some("http://evil.example"),
    )
    .await?;
    assert_eq!(
        other_site.status(),
        StatusCode::FORBIDDEN,
        "another site's form"
    );
    let cross_site = client
        .post(app.url("/ui/login"))
        .header(header::COOKIE, pair.clone())
        .header("sec-fetch-site", "cross-site")
        .form(&[("csrf", csrf.as_str()), ("token", TOKEN)])
        .send()
        .await?;
    assert_eq!(
        cross_site.status(),
        StatusCode::FORBIDDEN,
        "a cross-site post"
    );
    let wrong = post(Some(pair.clone()), &csrf, "not-the-token", Some("null")).await?;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert!(set_cookie(wrong.headers(), "gleaner_session").is_none());
    let right = post(Some(pair), &csrf, TOKEN, Some(&app.base)).await?;
    assert_eq!(right.status(), StatusCode::SEE_OTHER);
    let session = set_cookie(right.headers(), "gleaner_session").context("session")?;
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(session.contains(attribute), "{session}");
    }
    assert!(!session.contains("Secure"), "plain HTTP: {session}");

    // Behind a TLS proxy that says so, the cookies are Secure.
    let form = client
        .get(app.url("/ui/login"))
        .header("x-forwarded-proto", "https")
        .send()
        .await?;
    let login_cookie = set_cookie(form.headers(), "gleaner_login").context("login cookie")?;
    assert!(login_cookie.contains("; Secure"), "{login_cookie}");
    Ok(())
}

async fn signed_in_every_page_shows_the_store_escaped_and_under_the_policy(
    db: TestDb,
) -> anyhow::Result<()> {
    let ids = fill(&db.store).await?;
    let app = api_support::App::spawn(&db.store, Some(TOKEN)).await?;
    let client = browser()?;
    let session = sign_in(&client, &app.base).await?;
    let page = |path: String| {
        let request = client.get(app.url(&path)).header(header::COOKIE, &session);
        async move {
            let answer = request.send().await?;
            let status = answer.status();
            let headers = answer.headers().clone();
            anyhow::Ok((status, headers, answer.text().await?))
        }
    };
    let expectations: [(String, &[&str]); 5] = [
        (
            "/ui/".into(),
            &[
                "Harbour bridge reopens",
                "broken-feed",
                "HTTP 503",
                "articles in the last day",
            ],
        ),
        (
            "/ui/articles".into(),
            &["Library hours extended", "harbour-news"],
        ),
        (
            "/ui/articles?q=sundays".into(),
            &["Library hours extended", "<mark>"],
        ),
        (
            format!("/ui/articles/{}", ids[0]),
            &[
                "reopened to traffic on Monday",
                "<b>Bold</b>",
                "A. Reporter",
                "Source",
            ],
        ),
        (
            "/ui/feeds".into(),
            &["harbour-news", "broken-feed", "HTTP 503 from the feed"],
        ),
    ];
    for (path, wanted) in expectations {
        let (status, headers, body) = page(path.clone()).await?;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        for text in wanted {
            assert!(body.contains(text), "{path} lacks {text:?}:\n{body}");
        }
        let policy = headers[header::CONTENT_SECURITY_POLICY].to_str()?;
        assert!(policy.contains("default-src 'none'"), "{policy}");
        assert!(!policy.contains("script-src"), "no script at all: {policy}");
        assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        assert_eq!(headers[header::REFERRER_POLICY], "no-referrer");
        assert!(
            !body.contains("<script"),
            "{path} carries a script:\n{body}"
        );
        assert!(
            !body.contains("<img src=x"),
            "{path}: the payload is escaped"
        );
    }
    let (_, _, listing) = page("/ui/articles".into()).await?;
    assert!(
        listing.contains("&#60;script&#62;alert(1)&#60;/script&#62;"),
        "the title shown as text: {listing}"
    );
    let (_, _, failures) = page("/ui/failures".into()).await?;
    assert!(
        failures.contains("broken-feed") && failures.contains("http_status"),
        "{failures}"
    );
    let (status, headers, json) = page(format!("/ui/articles/{}/raw?format=json", ids[0])).await?;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()?
            .starts_with("application/json")
    );
    assert!(json.contains("Harbour bridge reopens"));
    let (status, headers, body) = page("/ui/articles/999999".into()).await?;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()?
            .starts_with("text/html")
    );
    assert!(body.contains("no article has id 999999"), "{body}");
    let (status, _, _) = page("/ui/articles?before_id=x".into()).await?;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    Ok(())
}

async fn signing_out_needs_the_sessions_form_value(db: TestDb) -> anyhow::Result<()> {
    fill(&db.store).await?;
    let app = api_support::App::spawn(&db.store, Some(TOKEN)).await?;
    let client = browser()?;
    let session = sign_in(&client, &app.base).await?;
    let overview = client
        .get(app.url("/ui/"))
        .header(header::COOKIE, &session)
        .send()
        .await?
        .text()
        .await?;
    let csrf = csrf_field(&overview).context("the sign-out form")?;
    let forged = client
        .post(app.url("/ui/logout"))
        .header(header::COOKIE, &session)
        .form(&[("csrf", "00")])
        .send()
        .await?;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let out = client
        .post(app.url("/ui/logout"))
        .header(header::COOKIE, &session)
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await?;
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    let cleared = set_cookie(out.headers(), "gleaner_session").context("cleared")?;
    assert!(cleared.contains("Max-Age=0"), "{cleared}");
    Ok(())
}

async fn without_a_token_the_view_is_open(db: TestDb) -> anyhow::Result<()> {
    fill(&db.store).await?;
    let app = api_support::App::spawn(&db.store, None).await?;
    let client = browser()?;
    let overview = client.get(app.url("/ui/")).send().await?;
    assert_eq!(overview.status(), StatusCode::OK);
    let body = overview.text().await?;
    assert!(body.contains("Harbour bridge reopens"));
    assert!(!body.contains("Sign out"), "nothing to sign out of");
    let login = client.get(app.url("/ui/login")).send().await?;
    assert_eq!(login.status(), StatusCode::SEE_OTHER);
    let css = client.get(app.url("/ui/style.css")).send().await?;
    assert_eq!(
        css.headers()[header::CONTENT_TYPE],
        "text/css; charset=utf-8"
    );
    Ok(())
}

/// HTTP/2 has no `Host` header: the sign-in form's `Origin` is compared with the request's
/// `:authority`, so a browser speaking HTTP/2 signs in like one speaking HTTP/1.
async fn signing_in_over_http2_with_an_origin_is_same_origin(db: TestDb) -> anyhow::Result<()> {
    fill(&db.store).await?;
    let app = api_support::App::spawn(&db.store, Some(TOKEN)).await?;
    let client = reqwest::Client::builder()
        .no_proxy()
        .http2_prior_knowledge()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let form = client.get(app.url("/ui/login")).send().await?;
    assert_eq!(form.version(), reqwest::Version::HTTP_2);
    assert_eq!(form.status(), StatusCode::OK);
    let login_cookie = set_cookie(form.headers(), "gleaner_login").context("login cookie")?;
    let pair = login_cookie.split(';').next().context("pair")?.to_string();
    let csrf = csrf_field(&form.text().await?).context("csrf field")?;
    let post = |origin: &str| {
        client
            .post(app.url("/ui/login"))
            .header(header::COOKIE, &pair)
            .header(header::ORIGIN, origin)
            .form(&[("csrf", csrf.as_str()), ("token", TOKEN)])
            .send()
    };
    let other_site = post("http://evil.example").await?;
    assert_eq!(other_site.status(), StatusCode::FORBIDDEN, "another site");
    let signed_in = post(&app.base).await?;
    assert_eq!(
        signed_in.status(),
        StatusCode::SEE_OTHER,
        "this site over HTTP/2"
    );
    let session = set_cookie(signed_in.headers(), "gleaner_session").context("session")?;
    let pair = session.split(';').next().context("pair")?;
    let overview = client
        .get(app.url("/ui/"))
        .header(header::COOKIE, pair)
        .send()
        .await?;
    assert_eq!(overview.status(), StatusCode::OK);
    Ok(())
}

/// Signing out ends the session on the server: the cookie, replayed afterwards, opens nothing;
/// another session of the same token is not touched.
async fn a_session_cookie_replayed_after_sign_out_is_no_session(db: TestDb) -> anyhow::Result<()> {
    fill(&db.store).await?;
    let app = api_support::App::spawn(&db.store, Some(TOKEN)).await?;
    let client = browser()?;
    let session = sign_in(&client, &app.base).await?;
    let other = sign_in(&client, &app.base).await?;
    let overview = |cookie: &str| {
        client
            .get(app.url("/ui/"))
            .header(header::COOKIE, cookie)
            .send()
    };
    let page = overview(&session).await?.text().await?;
    let csrf = csrf_field(&page).context("the sign-out form")?;
    let out = client
        .post(app.url("/ui/logout"))
        .header(header::COOKIE, &session)
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await?;
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    let replayed = overview(&session).await?;
    assert_eq!(
        replayed.status(),
        StatusCode::SEE_OTHER,
        "a replayed cookie"
    );
    assert_eq!(replayed.headers()[header::LOCATION], "/ui/login");
    assert_eq!(
        overview(&other).await?.status(),
        StatusCode::OK,
        "another session"
    );
    Ok(())
}

/// A `csrf` value made up by the client and repeated in the cookie is refused: it must be one
/// the server signed. Wrong tokens through the form lock the client out (`429`, `Retry-After`)
/// after the free failures, the right token included.
async fn a_sign_in_needs_a_value_the_server_signed_and_guesses_are_locked_out(
    db: TestDb,
) -> anyhow::Result<()> {
    let app = api_support::App::spawn(&db.store, Some(TOKEN)).await?;
    let client = browser()?;
    let made_up = client
        .post(app.url("/ui/login"))
        .header(header::COOKIE, "gleaner_login=0123456789abcdef")
        .form(&[("csrf", "0123456789abcdef"), ("token", TOKEN)])
        .send()
        .await?;
    assert_eq!(
        made_up.status(),
        StatusCode::FORBIDDEN,
        "a value nobody signed"
    );

    let form = client.get(app.url("/ui/login")).send().await?;
    let login_cookie = set_cookie(form.headers(), "gleaner_login").context("login cookie")?;
    let pair = login_cookie.split(';').next().context("pair")?.to_string();
    let csrf = csrf_field(&form.text().await?).context("csrf field")?;
    let post = |token: String| {
        client
            .post(app.url("/ui/login"))
            .header(header::COOKIE, &pair)
            .form(&[("csrf", csrf.clone()), ("token", token)])
            .send()
    };
    let mut locked = None;
    for guess in 0..50 {
        let answer = post(format!("guess-{guess}")).await?;
        if answer.status() == StatusCode::TOO_MANY_REQUESTS {
            locked = Some(answer);
            break;
        }
        assert_eq!(answer.status(), StatusCode::UNAUTHORIZED, "guess {guess}");
    }
    let locked = locked.context("guessing through the form was never slowed down")?;
    assert!(locked.headers().contains_key(header::RETRY_AFTER));
    let right = post(TOKEN.to_string()).await?;
    assert_eq!(right.status(), StatusCode::TOO_MANY_REQUESTS, "locked out");
    Ok(())
}

/// An audio episode's reading view names its kind and links its enclosure with its media
/// type, duration and size; an enclosure whose address is a script is not linked.
async fn an_episode_shows_its_kind_and_its_media_as_links(db: TestDb) -> anyhow::Result<()> {
    fill(&db.store).await?;
    let feed_id = db
        .store
        .feeds()
        .await?
        .into_iter()
        .find(|feed| feed.name == "harbour-news")
        .context("harbour-news")?
        .id;
    let enclosure = |url: &str| gleaner::store::Enclosure {
        url: url.to_string(),
        media_type: Some("audio/mpeg".into()),
        length: Some(31_415_926),
        duration_seconds: Some(42 * 60 + 10),
        thumbnail_url: None,
        transcript: false,
    };
    let episode = NewArticle {
        feed_id,
        guid: Some("episode-12".into()),
        url: "http://news.example/episodes/12".into(),
        canonical_url: None,
        title: "Episode 12: wheels".into(),
        author: None,
        summary: None,
        published_at: None,
        fetched_at: Utc::now(),
        language: Some("en".into()),
        extractor: "feed".into(),
        confidence: 0.9,
        verdict: Verdict::Article,
        quality: 0.9,
        text: "Show notes of the episode on truing wheels.".into(),
        html: "<p>Show notes of the episode on truing wheels.</p>".into(),
        raw_page: None,
        raw_content_type: None,
        images: Vec::new(),
        metadata: ArticleMetadata::default(),
        page_type: Default::default(),
        posts: Vec::new(),
        enclosures: vec![
            enclosure("https://cdn.news.example/episodes/12.mp3"),
            enclosure("javascript:alert(3)"),
        ],
        kind: gleaner::store::EntryKind::Audio,
        tags: Vec::new(),
    };
    let id = db.store.insert_article(&episode).await?.id();
    let app = api_support::App::spawn(&db.store, None).await?;
    let body = browser()?
        .get(app.url(&format!("/ui/articles/{id}")))
        .send()
        .await?
        .text()
        .await?;
    assert!(body.contains(" · audio"), "{body}");
    assert!(
        body.contains("href=\"https://cdn.news.example/episodes/12.mp3\""),
        "{body}"
    );
    assert!(body.contains("audio/mpeg · 42:10 · 31.4 MB"), "{body}");
    assert!(!body.contains("javascript:"), "{body}");
    Ok(())
}

/// An article of `feed_id` about `text`, of `page_type`.
fn farm_article(
    feed_id: i64,
    n: usize,
    title: &str,
    text: &str,
    page_type: gleaner::store::PageType,
) -> NewArticle {
    NewArticle {
        feed_id,
        guid: Some(format!("farm-{feed_id}-{n}")),
        url: format!("http://farm.example/{feed_id}/{n}"),
        canonical_url: None,
        title: title.to_string(),
        author: None,
        summary: None,
        published_at: None,
        fetched_at: Utc::now(),
        language: Some("en".into()),
        extractor: "cuter".into(),
        confidence: 0.9,
        verdict: Verdict::Article,
        quality: 0.9,
        text: text.to_string(),
        html: format!("<p>{text}</p>"),
        raw_page: None,
        raw_content_type: None,
        images: Vec::new(),
        metadata: ArticleMetadata::default(),
        page_type,
        posts: Vec::new(),
        enclosures: Vec::new(),
        kind: gleaner::store::EntryKind::Article,
        tags: Vec::new(),
    }
}

/// `/ui/articles?q=&feed=&page_type=` searches only the picked feed's articles of the picked
/// type, before the page's limit: another feed with more (and better) matches than a page
/// holds hides none of them.
async fn a_search_keeps_to_the_picked_feed_and_page_type(db: TestDb) -> anyhow::Result<()> {
    use gleaner::store::PageType;
    let schedule = gleaner::schedule::CronSchedule::parse("*/30 * * * *")?;
    let feeds = db
        .store
        .sync_feeds(&[
            gleaner::config::FeedConfig::new(
                "farm3",
                "http://farm3.example/feed.xml".parse()?,
                schedule.clone(),
            ),
            gleaner::config::FeedConfig::new(
                "farm4",
                "http://farm4.example/feed.xml".parse()?,
                schedule,
            ),
        ])
        .await?;
    let id_of = |name: &str| feeds.iter().find(|f| f.name == name).map(|f| f.id);
    let farm3 = id_of("farm3").context("farm3")?;
    let farm4 = id_of("farm4").context("farm4")?;
    let store = &db.store;
    store
        .insert_article(&farm_article(
            farm4,
            1,
            "Fourth tractor review",
            "An electric tractor on a small farm.",
            PageType::Article,
        ))
        .await?;
    store
        .insert_article(&farm_article(
            farm4,
            2,
            "Fourth forum thread",
            "Who charges an electric fence from solar?",
            PageType::Forum,
        ))
        .await?;
    for n in 0..60 {
        store
            .insert_article(&farm_article(
                farm3,
                n,
                &format!("Electric electric number {n}"),
                "Electric electric electric: all electric, all the time.",
                PageType::Article,
            ))
            .await?;
    }
    let app = api_support::App::spawn(&db.store, None).await?;
    let client = browser()?;
    let page = |query: &'static str| {
        let client = client.clone();
        let url = app.url(&format!("/ui/articles?{query}"));
        async move {
            let response = client.get(url).send().await?;
            anyhow::ensure!(response.status() == StatusCode::OK, "{query}");
            Ok::<String, anyhow::Error>(response.text().await?)
        }
    };

    let everything = page("q=electric").await?;
    assert!(everything.contains("Electric electric number"));

    let farm = page("q=electric&feed=farm4").await?;
    assert!(farm.contains("Fourth tractor review"), "{farm}");
    assert!(farm.contains("Fourth forum thread"), "{farm}");
    assert!(!farm.contains("Electric electric number"), "{farm}");

    let forum = page("q=electric&feed=farm4&page_type=forum").await?;
    assert!(forum.contains("Fourth forum thread"), "{forum}");
    assert!(!forum.contains("Fourth tractor review"), "{forum}");
    assert!(!forum.contains("Electric electric number"), "{forum}");

    let typed = page("q=electric&page_type=forum").await?;
    assert!(typed.contains("Fourth forum thread"), "{typed}");
    assert!(!typed.contains("Electric electric number"), "{typed}");

    let nobody = page("q=electric&feed=no-such-feed").await?;
    assert!(nobody.contains("Nothing found."), "{nobody}");
    Ok(())
}
