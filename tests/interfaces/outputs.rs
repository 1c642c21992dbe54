//! Results and full-text feeds out, end to end: a farm's feed carries categories; after a
//! poll a consumer claims by tag, posts a result, and reads it back through `export`,
//! `GET /articles/{id}` and an `[[outputs]]` feed, whose Atom and JSON Feed parse with
//! feed-rs and with Python's `feedparser` (skipped, saying so, where it is missing), answer
//! 304 to their own validators and 404 to a wrong key, and a client guessing keys is locked
//! out; on both databases.

#[allow(dead_code)]
use crate::api_support;
use crate::common;

use std::path::Path;
use std::process::Command;

use anyhow::Context as _;
use common::farm::{self, Farm};
use common::{TestConfig, TestDb, poll};
use gleaner::daemon;
use serde_json::{Value, json};

on_both_databases!(
    a_result_reaches_export_the_article_and_the_outbound_feeds,
    claims_filter_by_feed_and_tag_and_list_by_state,
);

const KEY: &str = "k3y-0123456789abcdef";
const TOKEN: &str = "api-token-0123456789";

/// Serves story `n`'s page, with an image, and returns its URL.
fn story(farm: &Farm, n: usize) -> String {
    let path = format!("/a/{n}.html");
    let image = format!("/img/{n}.png");
    farm.route(&image, farm::ok("image/png", farm::png()));
    farm.html(
        &path,
        &farm::article_page(
            &format!("Story {n} & more"),
            &farm::paragraphs(n),
            Some(&image),
        ),
    );
    farm.url(&path)
}

/// An RSS feed of stories 1 (Energy), 2 (Sports) and 3 (no category).
fn rss(farm: &Farm) -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>R</title>\
         <link>http://farm.example/</link>\
         <item><title>Story 1 &amp; more</title><link>{}</link><guid>r1</guid>\
         <category>Energy</category></item>\
         <item><title>Story 2 &amp; more</title><link>{}</link><guid>r2</guid>\
         <category>Sports</category></item>\
         <item><title>Story 3 &amp; more</title><link>{}</link><guid>r3</guid></item>\
         </channel></rss>",
        story(farm, 1),
        story(farm, 2),
        story(farm, 3)
    )
}

/// A farm with the feed `news` and a second feed `other` of one story, polled.
async fn polled(db: &TestDb, farm: &Farm) -> anyhow::Result<TestConfig> {
    farm.route(
        "/rss.xml",
        farm::ok("application/rss+xml", rss(farm).into()),
    );
    let other = farm.story_feed(9, 1, false, farm::html_route);
    let config = TestConfig::new(db)
        .loopback_farm()
        .set("images", "download", true)
        .feed("news", farm.url("/rss.xml"))
        .feed("other", other)
        .table_array(
            "outputs",
            &[
                ("name", "energy".into()),
                ("key", KEY.into()),
                ("tags", toml::Value::try_from(["energy"])?),
                ("summary_from", "summarizer".into()),
            ],
        );
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 4, "{reports:#?}");
    Ok(config)
}

async fn spawn(db: &TestDb, config: &TestConfig) -> anyhow::Result<api_support::App> {
    let outputs = config.parse()?.outputs;
    api_support::App::spawn_with(&db.store, Some(TOKEN), |api| api.outputs = outputs).await
}

fn gleaner(dir: &Path) -> Command {
    let mut command = common::gleaner_in(dir);
    command.arg("--config").arg(dir.join("config.toml"));
    command
}

fn run(command: &mut Command) -> anyhow::Result<String> {
    let output = command.output()?;
    anyhow::ensure!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(String::from_utf8(output.stdout)?)
}

const SUMMARY: &str = "Power & <light> \"for\" all";

/// Claims the one Energy story as `summarizer` and posts its summary; its id.
async fn summarized(app: &api_support::App) -> anyhow::Result<i64> {
    let (status, claimed) = app
        .post_json(
            "/claims",
            &json!({"consumer": "summarizer", "tags": ["ENERGY"], "limit": 10}),
        )
        .await?;
    assert_eq!(status, 200, "{claimed}");
    let claims = claimed["claims"].as_array().context("claims")?;
    assert_eq!(claims.len(), 1, "{claimed}");
    assert_eq!(claims[0]["article"]["title"], "Story 1 & more");
    let id = claims[0]["article"]["id"].as_i64().context("id")?;
    let body = json!({"consumer": "summarizer", "lease": claims[0]["lease"],
                      "result": {"summary": SUMMARY, "words": 7}});
    let (status, done) = app.post_json(&format!("/claims/{id}/done"), &body).await?;
    assert_eq!(status, 200, "{done}");
    Ok(id)
}

/// An output's URL answered without the API token, with these extra headers.
async fn fetch_output(
    app: &api_support::App,
    path: &str,
    headers: &[(reqwest::header::HeaderName, String)],
) -> anyhow::Result<reqwest::Response> {
    let mut request = app.client.get(app.url(path));
    for (name, value) in headers {
        request = request.header(name, value);
    }
    Ok(request.send().await?)
}

async fn a_result_reaches_export_the_article_and_the_outbound_feeds(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let config = polled(&db, &farm).await?;
    let app = spawn(&db, &config).await?;
    let id = summarized(&app).await?;

    let (status, article) = app.get_json(&format!("/articles/{id}")).await?;
    assert_eq!(status, 200, "{article}");
    assert_eq!(article["results"][0]["consumer"], "summarizer");
    assert_eq!(article["results"][0]["result"]["summary"], SUMMARY);

    let dir = tempfile::tempdir()?;
    config.write(dir.path())?;
    let exported: Vec<Value> = run(gleaner(dir.path()).args(["export", "--tag", "energy"]))?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(exported.len(), 1);
    assert_eq!(exported[0]["results"][0]["result"]["words"], 7);
    let shown = run(gleaner(dir.path()).args(["articles", "show", &id.to_string()]))?;
    assert!(shown.contains("result of summarizer"), "{shown}");
    let listed = run(gleaner(dir.path()).arg("outputs"))?;
    assert!(
        listed.contains(&format!("/outputs/energy.atom?key={KEY}")),
        "{listed}"
    );

    let atom = check_atom(&app, id).await?;
    let json_feed = check_json_feed(&app).await?;
    feedparser_reads(&atom, &json_feed)?;
    check_validators(&app).await?;
    check_hidden(&app).await?;
    check_guesses_locked_out(&app).await?;
    app.stop().await
}

/// The Atom output: one item, the summary, the tags, the body with absolute image addresses
/// that answer without the token.
async fn check_atom(app: &api_support::App, id: i64) -> anyhow::Result<String> {
    let response = fetch_output(app, &format!("/outputs/energy.atom?key={KEY}"), &[]).await?;
    assert_eq!(response.status(), 200);
    let content_type = response.headers().get("content-type").cloned();
    assert_eq!(
        content_type.as_ref().and_then(|v| v.to_str().ok()),
        Some("application/atom+xml; charset=utf-8")
    );
    let atom = response.text().await?;
    let feed = feed_rs::parser::parse(atom.as_bytes()).context("feed-rs reads the Atom")?;
    assert_eq!(feed.entries.len(), 1, "{atom}");
    let entry = &feed.entries[0];
    assert_eq!(entry.id, format!("urn:gleaner:article:{id}"));
    assert_eq!(
        entry.title.as_ref().map(|t| t.content.as_str()),
        Some("Story 1 & more")
    );
    assert_eq!(
        entry.summary.as_ref().map(|s| s.content.as_str()),
        Some(SUMMARY)
    );
    let terms: Vec<&str> = entry.categories.iter().map(|c| c.term.as_str()).collect();
    assert_eq!(terms, ["Energy"]);
    let body = entry
        .content
        .as_ref()
        .and_then(|c| c.body.clone())
        .context("a body")?;
    let images = format!("{}/outputs/energy/images/{KEY}/", app.base);
    let start = body.find(&images).context("a stored image address")?;
    let image_url: String = body[start..].chars().take_while(|c| *c != '"').collect();
    let image = app.client.get(&image_url).send().await?;
    assert_eq!(image.status(), 200, "{image_url}");
    assert_eq!(image.bytes().await?.as_ref(), farm::png().as_slice());
    Ok(atom)
}

async fn check_json_feed(app: &api_support::App) -> anyhow::Result<String> {
    let response = fetch_output(app, &format!("/outputs/energy.json?key={KEY}"), &[]).await?;
    assert_eq!(response.status(), 200);
    let text = response.text().await?;
    let feed = feed_rs::parser::parse(text.as_bytes()).context("feed-rs reads the JSON Feed")?;
    assert_eq!(feed.entries.len(), 1);
    let value: Value = serde_json::from_str(&text)?;
    assert_eq!(value["version"], "https://jsonfeed.org/version/1.1");
    assert_eq!(value["_gleaner"]["summary_from"], "summarizer");
    assert_eq!(value["items"][0]["summary"], SUMMARY);
    assert_eq!(value["items"][0]["tags"], json!(["Energy"]));
    Ok(text)
}

/// The Atom through Python's `feedparser` (well formed; the item's title, summary, tag and
/// body read back), and the JSON Feed through Python's `json` against the JSON Feed 1.1
/// rules a reader relies on (feedparser 6.0, the released one, reads no JSON Feed).
fn feedparser_reads(atom: &str, json_feed: &str) -> anyhow::Result<()> {
    let available = Command::new("python3")
        .args(["-c", "import feedparser"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !available {
        eprintln!("SKIPPED feedparser_reads: python3 has no `feedparser` package");
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let script = "import feedparser, json, sys\n\
                  d = feedparser.parse(sys.argv[1])\n\
                  e = d.entries[0]\n\
                  j = json.load(open(sys.argv[2]))\n\
                  assert j['version'] == 'https://jsonfeed.org/version/1.1'\n\
                  assert isinstance(j['title'], str) and isinstance(j['items'], list)\n\
                  i = j['items'][0]\n\
                  assert isinstance(i['id'], str) and isinstance(i['content_html'], str)\n\
                  print(json.dumps({'bozo': bool(d.bozo), 'version': d.version,\n\
                  \x20                 'title': e.title, 'summary': e.get('summary'),\n\
                  \x20                 'tags': [t.term for t in e.get('tags', [])],\n\
                  \x20                 'content': e.content[0].value,\n\
                  \x20                 'json_title': i['title']}))\n";
    let atom_path = dir.path().join("feed.atom");
    std::fs::write(&atom_path, atom)?;
    let json_path = dir.path().join("feed.json");
    std::fs::write(&json_path, json_feed)?;
    let output = Command::new("python3")
        .args(["-c", script])
        .arg(&atom_path)
        .arg(&json_path)
        .output()?;
    anyhow::ensure!(
        output.status.success(),
        "feedparser: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read: Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(read["bozo"], false, "{read}");
    assert_eq!(read["version"], "atom10", "{read}");
    assert_eq!(read["title"], "Story 1 & more", "{read}");
    assert_eq!(read["summary"], SUMMARY, "{read}");
    assert_eq!(read["tags"], json!(["Energy"]), "{read}");
    assert_eq!(read["json_title"], "Story 1 & more", "{read}");
    let content = read["content"].as_str().unwrap_or_default();
    assert!(content.contains("<p>"), "the Atom body is HTML: {content}");
    Ok(())
}

/// A repeat with either validator is a 304; a stale one is a 200.
async fn check_validators(app: &api_support::App) -> anyhow::Result<()> {
    for format in ["atom", "json"] {
        let path = format!("/outputs/energy.{format}?key={KEY}");
        let first = fetch_output(app, &path, &[]).await?;
        let header = |name: &str| {
            first
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
                .with_context(|| format!("{name} of {path}"))
        };
        let (etag, modified) = (header("etag")?, header("last-modified")?);
        let again = fetch_output(app, &path, &[(reqwest::header::IF_NONE_MATCH, etag)]).await?;
        assert_eq!(again.status(), 304, "{path}");
        assert!(again.text().await?.is_empty());
        let since = [(reqwest::header::IF_MODIFIED_SINCE, modified)];
        assert_eq!(fetch_output(app, &path, &since).await?.status(), 304);
        let stale = [(reqwest::header::IF_NONE_MATCH, "\"stale\"".to_string())];
        assert_eq!(fetch_output(app, &path, &stale).await?.status(), 200);
    }
    Ok(())
}

/// Guessing keys is a failed authentication each time: after the free failures the client
/// waits (429 with `Retry-After`), and while it waits the right key opens nothing either.
async fn check_guesses_locked_out(app: &api_support::App) -> anyhow::Result<()> {
    let mut guesses = 0;
    let locked = loop {
        guesses += 1;
        let path = format!("/outputs/energy.atom?key=guess-{guesses:04}");
        let response = fetch_output(app, &path, &[]).await?;
        if response.status() != 404 {
            break response;
        }
        anyhow::ensure!(
            guesses <= 2 * gleaner::api::attempts::FREE_FAILURES,
            "{guesses} wrong keys and no lockout"
        );
    };
    assert_eq!(locked.status(), 429);
    assert!(locked.headers().contains_key(reqwest::header::RETRY_AFTER));
    let right = fetch_output(app, &format!("/outputs/energy.atom?key={KEY}"), &[]).await?;
    assert_eq!(right.status(), 429);
    Ok(())
}

/// A wrong or missing key, or another name, is the same 404; the API token opens nothing.
async fn check_hidden(app: &api_support::App) -> anyhow::Result<()> {
    let unknown = fetch_output(app, "/outputs/nothing-here.atom?key=x", &[]).await?;
    assert_eq!(unknown.status(), 404);
    let unknown_body = unknown.text().await?;
    let bearer = [(reqwest::header::AUTHORIZATION, format!("Bearer {TOKEN}"))];
    for (path, headers) in [
        (
            "/outputs/energy.atom?key=wrong-key-0123456789".to_string(),
            &[][..],
        ),
        ("/outputs/energy.json".to_string(), &[][..]),
        ("/outputs/energy.atom".to_string(), &bearer[..]),
        (format!("/outputs/energy.atom?key={TOKEN}"), &[][..]),
        (format!("/outputs/energy.rss?key={KEY}"), &[][..]),
    ] {
        let response = fetch_output(app, &path, headers).await?;
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(response.text().await?, unknown_body, "{path}");
    }
    Ok(())
}

async fn claims_filter_by_feed_and_tag_and_list_by_state(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let config = polled(&db, &farm).await?;
    let app = spawn(&db, &config).await?;
    let claim = |body: Value| {
        let app = &app;
        async move { app.post_json("/claims", &body).await }
    };
    let (status, refused) = claim(json!({"consumer": "c", "feeds": ["nope"]})).await?;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap_or_default()
            .contains("nope")
    );
    let (status, refused) = claim(json!({"consumer": "c", "tags": []})).await?;
    assert_eq!(status, 400, "{refused}");

    let (status, other) = claim(json!({"consumer": "c", "feeds": ["other"]})).await?;
    assert_eq!(status, 200, "{other}");
    let titles = |answer: &Value| -> Vec<String> {
        answer["claims"]
            .as_array()
            .map(|claims| {
                claims
                    .iter()
                    .filter_map(|c| c["article"]["title"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(titles(&other), ["Story 900"]);
    let (_, sports) =
        claim(json!({"consumer": "c", "feeds": ["news"], "tags": ["sports", "x"]})).await?;
    assert_eq!(titles(&sports), ["Story 2 & more"]);
    let done_id = sports["claims"][0]["article"]["id"]
        .as_i64()
        .context("id")?;
    let (status, _) = app
        .post_json(
            &format!("/claims/{done_id}/done"),
            &json!({"consumer": "c", "result": "ok"}),
        )
        .await?;
    assert_eq!(status, 200);

    list_by_state(&app, done_id).await?;
    app.stop().await
}

/// `GET /claims?consumer=c`: the done claim with its result, the leased one, by state and
/// a page at a time; a state it does not know is a 400.
async fn list_by_state(app: &api_support::App, done_id: i64) -> anyhow::Result<()> {
    let listed = |state: &str| {
        let path = format!("/claims?consumer=c&state={state}");
        async move { app.get_json(&path).await }
    };
    let (status, done) = listed("done").await?;
    assert_eq!(status, 200, "{done}");
    let done_claims = done["claims"].as_array().context("claims")?;
    assert_eq!(done_claims.len(), 1, "{done}");
    assert_eq!(done_claims[0]["article_id"], done_id);
    assert_eq!(done_claims[0]["result"], "ok");
    let (_, leased) = listed("leased").await?;
    assert_eq!(leased["claims"].as_array().map(Vec::len), Some(1));
    assert_eq!(leased["claims"][0]["state"], "leased");
    let (_, all) = listed("all").await?;
    assert_eq!(all["claims"].as_array().map(Vec::len), Some(2));
    let (_, expired) = listed("expired").await?;
    assert_eq!(expired["claims"].as_array().map(Vec::len), Some(0));
    let (status, bad) = listed("finished").await?;
    assert_eq!(status, 400, "{bad}");
    assert!(bad["error"].as_str().unwrap_or_default().contains("leased"));
    let (status, page) = app.get_json("/claims?consumer=c&limit=1").await?;
    assert_eq!(status, 200);
    assert_eq!(page["more"], true, "{page}");
    let next = page["next_after_id"].as_i64().context("cursor")?;
    let (_, rest) = app
        .get_json(&format!("/claims?consumer=c&after_id={next}"))
        .await?;
    assert_eq!(rest["claims"].as_array().map(Vec::len), Some(1));
    assert_eq!(rest["more"], false);
    let (status, _) = app.get_json("/claims").await?;
    assert_eq!(status, 400);
    Ok(())
}
