//! A consumer's result shown with its article wherever the article is read: `export` (JSON
//! and Markdown front matter), `articles show`, the web view's reading page, MCP
//! `get_article` over stdio, and an output's item summary (its stored images at gleaner's
//! addresses, the others at their own); an article nobody reported keeps its JSON as it was;
//! an output's validators, which are made before its bodies are read, change with its items.
//! On both databases.

#[allow(dead_code)]
use crate::api_support;
use crate::common;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::Context as _;
use chrono::Duration;
use common::{TestConfig, TestDb};
use gleaner::store::claims::{ClaimFilter, ClaimedArticle};
use serde_json::{Value, json};

on_both_databases!(
    outputs_are_listed_with_their_urls_and_reported_without_their_keys,
    a_result_is_shown_wherever_its_article_is_read,
    an_output_serves_stored_images_from_gleaner_and_others_from_their_site,
    an_outputs_etag_follows_its_items_and_answers_a_revalidation_304,
);

const KEY: &str = "results-key-0123456789";

/// `summarizer` claims the oldest article it has not taken, for a minute.
async fn summarizer_claims_one(db: &TestDb) -> anyhow::Result<Vec<ClaimedArticle>> {
    Ok(db
        .store
        .claim(
            "summarizer",
            1,
            Duration::seconds(60),
            ClaimFilter::default(),
        )
        .await?)
}

/// Seeds two articles and reports the first done by `summarizer` with a summary; the ids.
async fn reported(db: &TestDb) -> anyhow::Result<(i64, i64)> {
    let seeded = api_support::seed(&db.store, 2).await?;
    let (first, second) = (seeded.ids[0], seeded.ids[1]);
    let claimed = summarizer_claims_one(db).await?;
    assert_eq!(claimed.len(), 1);
    let result = json!({"summary": "Ports & <storms>", "score": 3});
    db.store
        .finish_claim("summarizer", first, Some(claimed[0].lease), Some(&result))
        .await?;
    Ok((first, second))
}

fn config(db: &TestDb) -> TestConfig {
    TestConfig::new(db)
        .feed("alpha", "https://alpha.example/feed.xml")
        .feed("beta", "https://beta.example/feed.xml")
        .table_array(
            "outputs",
            &[
                ("name", "all".into()),
                ("key", KEY.into()),
                ("summary_from", "summarizer".into()),
            ],
        )
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

async fn a_result_is_shown_wherever_its_article_is_read(db: TestDb) -> anyhow::Result<()> {
    let (first, second) = reported(&db).await?;
    let dir = tempfile::tempdir()?;
    let config = config(&db);
    config.write(dir.path())?;

    let lines: Vec<Value> = run(gleaner(dir.path()).arg("export"))?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let by_id = |id: i64| lines.iter().find(|line| line["id"] == id);
    let exported = by_id(first).context("the first article")?;
    assert_eq!(exported["results"][0]["consumer"], "summarizer");
    assert_eq!(exported["results"][0]["result"]["score"], 3);
    let untouched = by_id(second).context("the second article")?;
    assert!(untouched.get("results").is_none(), "{untouched}");

    let markdown = dir.path().join("md");
    run(gleaner(dir.path())
        .args(["export", "--format", "markdown", "--dir"])
        .arg(&markdown))?;
    let document = std::fs::read_to_string(markdown.join(format!("{first}.md")))?;
    let front = document.split("\n---\n").next().unwrap_or_default();
    assert!(
        front.contains("results:\n  - consumer: \"summarizer\"\n    done_at: \""),
        "{document}"
    );
    // The result reads back, through a YAML reader, as the JSON text the consumer posted.
    let yaml = yaml_rust2::YamlLoader::load_from_str(front.trim_start_matches("---\n"))?;
    let result = yaml[0]["results"][0]["result"]
        .as_str()
        .context("the result as a string")?;
    let result: Value = serde_json::from_str(result)?;
    assert_eq!(result["summary"], "Ports & <storms>");
    assert!(!std::fs::read_to_string(markdown.join(format!("{second}.md")))?.contains("results:"));

    let shown = run(gleaner(dir.path()).args(["articles", "show", &first.to_string()]))?;
    assert!(shown.contains("result of summarizer ("), "{shown}");
    assert!(shown.contains("\"score\":3"), "{shown}");

    check_web_view(&db, first, second).await?;

    let called = mcp_get_article(dir.path(), first)?;
    assert_eq!(
        called["result"]["structuredContent"]["results"][0]["consumer"], "summarizer",
        "{called}"
    );
    let text = called["result"]["content"][0]["text"]
        .as_str()
        .context("a text")?;
    assert!(
        text.contains("results:\n  - consumer: \"summarizer\""),
        "{text}"
    );
    Ok(())
}

/// The reading page shows the result, escaped; the Markdown of the API has it in its front
/// matter.
async fn check_web_view(db: &TestDb, first: i64, second: i64) -> anyhow::Result<()> {
    let app = api_support::App::spawn(&db.store, None).await?;
    let page = app
        .get(&format!("/ui/articles/{first}"))
        .await?
        .text()
        .await?;
    assert!(page.contains("<h2>Results</h2>"), "{page}");
    assert!(
        ["Ports &amp; &lt;storms&gt;", "Ports &#38; &#60;storms&#62;"]
            .iter()
            .any(|escaped| page.contains(escaped)),
        "{page}"
    );
    assert!(!page.contains("<storms>"), "{page}");
    let other = app
        .get(&format!("/ui/articles/{second}"))
        .await?
        .text()
        .await?;
    assert!(!other.contains("<h2>Results</h2>"));
    let markdown = app
        .get(&format!("/articles/{first}?format=markdown"))
        .await?
        .text()
        .await?;
    assert!(markdown.contains("results:\n"), "{markdown}");
    app.stop().await
}

/// `get_article {id}` through `gleaner mcp` on standard input and output.
fn mcp_get_article(dir: &Path, id: i64) -> anyhow::Result<Value> {
    let mut server = gleaner(dir)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut input = server.stdin.take().context("stdin")?;
    let mut output = BufReader::new(server.stdout.take().context("stdout")?);
    let mut answer = |messages: &[Value]| -> anyhow::Result<Value> {
        for message in messages {
            writeln!(input, "{message}")?;
        }
        input.flush()?;
        let mut line = String::new();
        output.read_line(&mut line)?;
        Ok(serde_json::from_str(&line)?)
    };
    answer(&[json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}}
    })])?;
    let called = answer(&[
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "get_article", "arguments": {"id": id}}}),
    ]);
    let _ = server.kill();
    let _ = server.wait();
    called
}

async fn an_output_serves_stored_images_from_gleaner_and_others_from_their_site(
    db: TestDb,
) -> anyhow::Result<()> {
    let (first, _) = reported(&db).await?;
    let outputs = config(&db).parse()?.outputs;
    let public = "https://reader.example/gleaner/";
    let app = api_support::App::spawn_with(&db.store, Some("a-token-of-the-api"), |api| {
        api.outputs = outputs;
        api.public_url = public.parse().ok();
    })
    .await?;
    let answer = app
        .client
        .get(app.url(&format!("/outputs/all.json?key={KEY}")))
        .send()
        .await?;
    assert_eq!(answer.status(), 200);
    let feed: Value = serde_json::from_str(&answer.text().await?)?;
    assert_eq!(
        feed["feed_url"],
        format!("https://reader.example/gleaner/outputs/all.json?key={KEY}")
    );
    let items = feed["items"].as_array().context("items")?;
    assert_eq!(items.len(), 2);
    let item = items
        .iter()
        .find(|item| item["id"] == format!("urn:gleaner:article:{first}"))
        .context("the first article")?;
    assert_eq!(item["summary"], "Ports & <storms>");
    let html = item["content_html"].as_str().context("content_html")?;
    let stored = format!("https://reader.example/gleaner/outputs/all/images/{KEY}/");
    assert!(html.contains(&stored), "{html}");
    assert!(
        html.contains("src=\"https://news.example/img/b.png\""),
        "{html}"
    );
    let others: Vec<&Value> = items.iter().filter(|i| i["id"] != item["id"]).collect();
    assert!(others[0].get("summary").is_none(), "{:?}", others[0]);
    let sha = html[html.find(&stored).context("stored")? + stored.len()..]
        .chars()
        .take(64)
        .collect::<String>();
    let image = app
        .client
        .get(app.url(&format!("/outputs/all/images/{KEY}/{sha}")))
        .send()
        .await?;
    assert_eq!(image.status(), 200);
    let wrong = app
        .client
        .get(app.url(&format!("/outputs/all/images/wrong-key-0123456789/{sha}")))
        .send()
        .await?;
    assert_eq!(wrong.status(), 404);
    app.stop().await
}

async fn outputs_are_listed_with_their_urls_and_reported_without_their_keys(
    db: TestDb,
) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let unserved = config(&db);
    unserved.write(dir.path())?;
    let listed = run(gleaner(dir.path()).arg("outputs"))?;
    assert!(listed.contains("not served"), "{listed}");
    config(&db)
        .set("api", "listen", "127.0.0.1:18080")
        .write(dir.path())?;
    let listed: Value =
        serde_json::from_str(&run(gleaner(dir.path()).args(["outputs", "--json"]))?)?;
    assert_eq!(
        listed[0]["atom"],
        format!("http://127.0.0.1:18080/outputs/all.atom?key={KEY}")
    );
    assert_eq!(
        listed[0]["json"],
        format!("http://127.0.0.1:18080/outputs/all.json?key={KEY}")
    );
    let checked = run(gleaner(dir.path()).arg("check-config"))?;
    assert!(checked.contains("outputs: 1 (all; keys ***"), "{checked}");
    assert!(!checked.contains(KEY), "{checked}");
    Ok(())
}

/// An output's ETag and a request that presents `etag` (none: a plain GET): the status and
/// the answer's ETag.
async fn output_etag(
    app: &api_support::App,
    path: &str,
    etag: Option<&str>,
) -> anyhow::Result<(u16, String)> {
    let mut request = app.client.get(app.url(path));
    if let Some(etag) = etag {
        request = request.header(reqwest::header::IF_NONE_MATCH, etag);
    }
    let answer = request.send().await?;
    let status = answer.status().as_u16();
    let answered = answer
        .headers()
        .get(reqwest::header::ETAG)
        .and_then(|value| value.to_str().ok())
        .context("an ETag")?
        .to_string();
    Ok((status, answered))
}

/// The ETag is made from the items before their bodies are read: the same items answer a
/// revalidation 304; a new summary or a new article changes it; each format has its own.
async fn an_outputs_etag_follows_its_items_and_answers_a_revalidation_304(
    db: TestDb,
) -> anyhow::Result<()> {
    let (_, second) = reported(&db).await?;
    let outputs = config(&db).parse()?.outputs;
    let app = api_support::App::spawn_with(&db.store, None, |api| api.outputs = outputs).await?;
    let atom = format!("/outputs/all.atom?key={KEY}");
    let (status, first_etag) = output_etag(&app, &atom, None).await?;
    assert_eq!(status, 200);
    let (status, again) = output_etag(&app, &atom, Some(&first_etag)).await?;
    assert_eq!((status, &again), (304, &first_etag));
    let (_, json_etag) = output_etag(&app, &format!("/outputs/all.json?key={KEY}"), None).await?;
    assert_ne!(json_etag, first_etag, "each format has its own");

    let claimed = summarizer_claims_one(&db).await?;
    assert_eq!(claimed.first().map(|claim| claim.article.id), Some(second));
    let result = json!({"summary": "A second summary"});
    db.store
        .finish_claim("summarizer", second, Some(claimed[0].lease), Some(&result))
        .await?;
    let (status, summarized_etag) = output_etag(&app, &atom, Some(&first_etag)).await?;
    assert_eq!(status, 200, "a new summary is a new document");
    assert_ne!(summarized_etag, first_etag);

    let alpha = db.store.feed_by_name("alpha").await?.context("alpha")?;
    db.store
        .insert_article(&api_support::dense_article(alpha.id, 1))
        .await?;
    let (status, grown_etag) = output_etag(&app, &atom, Some(&summarized_etag)).await?;
    assert_eq!(status, 200, "a new article is a new document");
    assert_ne!(grown_etag, summarized_etag);
    let (status, _) = output_etag(&app, &atom, Some(&grown_etag)).await?;
    assert_eq!(status, 304);
    app.stop().await
}
