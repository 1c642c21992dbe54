//! Markdown with YAML front matter, read back by a YAML parser: every output path
//! (`articles show`, `export --format markdown`, `GET /articles/{id}?format=markdown`,
//! `extract --format markdown`) opens with `title, url, feed, author, published_at, language,
//! id, verdict, quality`, and a hostile title reads back as itself.

use crate::common;

use chrono::{TimeZone, Utc};
use common::TestDb;
use gleaner::markdown::FrontMatter;
use gleaner::store::{NewArticle, Verdict, db_time};
use yaml_rust2::{Yaml, YamlLoader};

on_both_databases!(every_output_path_opens_with_front_matter_a_yaml_parser_reads);

/// Titles that break naive front matter: YAML syntax, quotes, escapes, a document marker,
/// words YAML 1.1 reads as booleans, separators YAML folds as line breaks, markup a Markdown
/// renderer would act on.
const HOSTILE_TITLES: [&str; 8] = [
    "Breaking: \"quotes\" & 'apostrophes' # not a comment",
    "- a list item? no: a title",
    "yes",
    "back\\slash and a tab\there",
    "---\nsecond line",
    "line\u{2028}separator, para\u{2029}graph, BOM\u{feff} and 🚀",
    "Council <script>alert(12)</script> approves budget",
    "[a](javascript:alert(1)) &amp; {: onclick=alert(1)}",
];

/// The front matter of a Markdown document, parsed; and the body after it.
fn front_matter(markdown: &str) -> anyhow::Result<(Yaml, String)> {
    let rest = markdown
        .strip_prefix("---\n")
        .ok_or_else(|| anyhow::anyhow!("no opening ---: {markdown:?}"))?;
    let end = rest
        .find("\n---\n")
        .ok_or_else(|| anyhow::anyhow!("no closing ---: {markdown:?}"))?;
    let mut docs = YamlLoader::load_from_str(&rest[..end])?;
    anyhow::ensure!(docs.len() == 1, "one document: {markdown:?}");
    Ok((docs.remove(0), rest[end + "\n---\n".len()..].to_string()))
}

#[test]
fn hostile_titles_read_back_as_themselves() -> anyhow::Result<()> {
    for title in HOSTILE_TITLES {
        let front = FrontMatter {
            title: Some(title),
            url: Some("https://example.org/a?b=c&d=e#f"),
            id: Some(7),
            quality: Some(0.8125),
            duplicate_of: Some(3),
            ..Default::default()
        };
        let (yaml, _) = front_matter(&front.to_yaml())?;
        assert!(
            !front
                .to_yaml()
                .contains(['<', '>', '&', '[', ']', '{', '}']),
            "markup characters are YAML escapes: {}",
            front.to_yaml()
        );
        assert_eq!(yaml["title"].as_str(), Some(title), "{}", front.to_yaml());
        assert_eq!(
            yaml["url"].as_str(),
            Some("https://example.org/a?b=c&d=e#f")
        );
        assert_eq!(yaml["id"].as_i64(), Some(7));
        assert_eq!(yaml["duplicate_of"].as_i64(), Some(3));
        assert_eq!(yaml["quality"].as_f64(), Some(0.812));
        assert!(yaml["author"].is_badvalue(), "absent values are left out");
    }
    Ok(())
}

async fn every_output_path_opens_with_front_matter_a_yaml_parser_reads(
    db: TestDb,
) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let config = common::TestConfig::new(&db)
        .feed("wire", "https://wire.example/feed.xml")
        .write(dir.path())?;
    let feeds = db
        .store
        .sync_feeds(
            &common::TestConfig::new(&db)
                .feed("wire", "https://wire.example/feed.xml")
                .parse()?
                .feeds,
        )
        .await?;
    let title = HOSTILE_TITLES[0];
    let published = db_time(
        Utc.with_ymd_and_hms(2026, 11, 20, 8, 30, 0)
            .single()
            .unwrap_or_default(),
    );
    let article = NewArticle {
        feed_id: feeds[0].id,
        guid: Some("wire-1".into()),
        url: "https://wire.example/story".into(),
        canonical_url: None,
        title: title.into(),
        author: Some("Desk: \"Night\"".into()),
        summary: None,
        published_at: Some(published),
        fetched_at: db_time(Utc::now()),
        language: Some("en".into()),
        extractor: "cuter".into(),
        confidence: 0.9,
        verdict: Verdict::Article,
        quality: 0.875,
        text: "The harbour reopened.\n\nShips came in.".into(),
        html: "<h2>Harbour</h2><p>The harbour reopened.</p><table><tr><th>Ship</th><th>Hour</th></tr>\
               <tr><td>Ada</td><td>6</td></tr></table><figure><img src=\"https://wire.example/a.jpg\" alt=\"A ship\">\
               <figcaption>The first ship</figcaption></figure><p>Ships came in.</p>"
            .into(),
        raw_page: None,
        raw_content_type: None,
        images: Vec::new(),
        metadata: Default::default(),
        page_type: Default::default(),
        posts: Vec::new(),
        enclosures: Vec::new(),
        kind: gleaner::store::EntryKind::Article,
        tags: Vec::new(),
    };
    let id = db.store.insert_article(&article).await?.id();
    let check = |markdown: &str, path: &str| -> anyhow::Result<()> {
        let (yaml, body) = front_matter(markdown)?;
        assert_eq!(yaml["title"].as_str(), Some(title), "{path}");
        assert_eq!(
            yaml["url"].as_str(),
            Some("https://wire.example/story"),
            "{path}"
        );
        assert_eq!(yaml["feed"].as_str(), Some("wire"), "{path}");
        assert_eq!(yaml["author"].as_str(), Some("Desk: \"Night\""), "{path}");
        assert_eq!(
            yaml["published_at"].as_str(),
            Some("2026-11-20T08:30:00Z"),
            "{path}"
        );
        assert_eq!(yaml["language"].as_str(), Some("en"), "{path}");
        assert_eq!(yaml["id"].as_i64(), Some(id), "{path}");
        assert_eq!(yaml["verdict"].as_str(), Some("article"), "{path}");
        assert_eq!(yaml["quality"].as_f64(), Some(0.875), "{path}");
        assert!(
            body.contains("| Ship | Hour |"),
            "{path}: a table stays a table\n{body}"
        );
        assert!(
            body.contains("![A ship](https://wire.example/a.jpg)"),
            "{path}\n{body}"
        );
        assert!(
            body.contains("The first ship"),
            "{path}: the caption stays\n{body}"
        );
        Ok(())
    };

    let gleaner = |args: &[&str]| {
        common::gleaner_in(dir.path())
            .arg("--config")
            .arg(&config)
            .args(args)
            .output()
    };
    let shown = gleaner(&["articles", "show", &id.to_string(), "--format", "markdown"])?;
    assert!(shown.status.success(), "{shown:?}");
    check(&String::from_utf8(shown.stdout)?, "articles show")?;

    let out = dir.path().join("md");
    let out_arg = out.display().to_string();
    let exported = gleaner(&["export", "--format", "markdown", "--dir", &out_arg])?;
    assert!(exported.status.success(), "{exported:?}");
    check(
        &std::fs::read_to_string(out.join(format!("{id}.md")))?,
        "export",
    )?;
    let without_dir = gleaner(&["export", "--format", "markdown"])?;
    assert_eq!(without_dir.status.code(), Some(2), "--dir is required");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let listen = listener.local_addr()?;
    let stop = tokio_util::sync::CancellationToken::new();
    let server = tokio::spawn(gleaner::api::serve(
        listener,
        db.store.clone(),
        gleaner::config::ApiConfig::new(listen, None),
        stop.clone(),
    ));
    let client = reqwest::Client::builder().no_proxy().build()?;
    let answer = client
        .get(format!("http://{listen}/articles/{id}?format=markdown"))
        .send()
        .await?;
    assert_eq!(answer.status(), 200);
    check(&answer.text().await?, "GET /articles/{id}")?;
    stop.cancel();
    let _ = server.await;

    let page = dir.path().join("page.html");
    std::fs::write(
        &page,
        format!(
            "<html lang=\"en\"><head><title>t</title></head><body><article><h1>{}</h1><p>{}</p></article></body></html>",
            "Harbour reopens",
            common::farm::paragraphs(3).join("</p><p>")
        ),
    )?;
    let page_arg = page.display().to_string();
    let extracted = gleaner(&[
        "extract",
        &page_arg,
        "--url",
        "https://wire.example/page",
        "--format",
        "markdown",
    ])?;
    assert!(extracted.status.success(), "{extracted:?}");
    let (yaml, _) = front_matter(&String::from_utf8(extracted.stdout)?)?;
    assert_eq!(yaml["url"].as_str(), Some("https://wire.example/page"));
    assert_eq!(yaml["language"].as_str(), Some("en"));
    assert!(yaml["verdict"].as_str().is_some());
    Ok(())
}
