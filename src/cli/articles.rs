//! `gleaner articles list/show/search` and `gleaner export`: reading the article database.

use std::io::Write;

use chrono::{DateTime, Utc};

use super::feeds::time_cell;
use super::table::{one_line, text_block};
use super::{CliError, Context, open_store, print_json, table};
use crate::config::Config;
use crate::store::{ArticleFilter, ArticleRecord, SearchQuery, Store};

/// The largest page a listing or search returns at once.
const MAX_LIMIT: i64 = 10_000;
/// Articles read per round trip while exporting.
const EXPORT_BATCH: i64 = 200;

/// The next `limit` articles after `cursor` in ascending id order, optionally of one feed:
/// the walk of `export` and `reextract`.
pub(super) async fn batch_after(
    store: &Store,
    feed: Option<&str>,
    cursor: i64,
    limit: i64,
) -> Result<Vec<crate::store::ArticleSummary>, CliError> {
    let filter = ArticleFilter {
        feed: feed.map(str::to_string),
        after_id: Some(cursor),
        limit,
        ascending: true,
        ..Default::default()
    };
    store
        .list_articles(&filter)
        .await
        .context("listing articles")
}

fn check_limit(limit: i64) -> Result<i64, CliError> {
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(CliError::Usage(format!(
            "--limit must be between 1 and {MAX_LIMIT}, not {limit}"
        )));
    }
    Ok(limit)
}

/// `--since`: an RFC 3339 time, or a date (`2026-11-23`) meaning its midnight UTC.
pub(super) fn parse_since(since: Option<&str>) -> Result<Option<DateTime<Utc>>, CliError> {
    since
        .map(|text| {
            if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
                return Ok(date.and_time(chrono::NaiveTime::MIN).and_utc());
            }
            DateTime::parse_from_rfc3339(text)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|e| {
                    CliError::Usage(format!(
                        "--since `{text}` is neither a date (YYYY-MM-DD) nor RFC 3339 ({e})"
                    ))
                })
        })
        .transpose()
}

/// `articles list`: newest first.
pub async fn list(
    config: &Config,
    feed: Option<String>,
    since: Option<&str>,
    after_id: Option<i64>,
    limit: i64,
    json: bool,
) -> Result<(), CliError> {
    let filter = ArticleFilter {
        feed,
        since: parse_since(since)?,
        after_id,
        limit: check_limit(limit)?,
        ascending: false,
    };
    let store = open_store(config).await?;
    let rows = store
        .list_articles(&filter)
        .await
        .context("listing articles")?;
    store.close().await;
    if json {
        return print_json(&rows);
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|a| {
            vec![
                a.id.to_string(),
                a.feed.clone(),
                time_cell(a.published_at.or(Some(a.fetched_at)), "-"),
                a.word_count.to_string(),
                a.title.clone(),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(&["ID", "FEED", "PUBLISHED", "WORDS", "TITLE"], &cells, 70)
    );
    Ok(())
}

async fn record(store: &Store, id: i64) -> Result<Option<ArticleRecord>, CliError> {
    store.article_record(id).await.context("reading an article")
}

/// `articles show`: the text (with a short header), the stored HTML, or everything as JSON.
pub async fn show(config: &Config, id: i64, format: &str) -> Result<(), CliError> {
    let store = open_store(config).await?;
    let found = record(&store, id).await?;
    store.close().await;
    let Some(article) = found else {
        return Err(CliError::Runtime {
            context: format!("article {id}"),
            source: "no such article".into(),
        });
    };
    match format {
        "json" => print_json(&article),
        "html" => {
            println!("{}", text_block(&article.html));
            Ok(())
        }
        "markdown" => {
            println!("{}", text_block(&crate::markdown::from_html(&article.html)));
            Ok(())
        }
        _ => {
            println!("{}", one_line(&article.title));
            println!("{}", one_line(&article.url));
            let byline: Vec<String> = [
                article
                    .author
                    .as_deref()
                    .map(|author| one_line(author).into_owned()),
                article
                    .published_at
                    .map(|t| t.format("%Y-%m-%d").to_string()),
                Some(format!("{} words", article.word_count)),
                Some(format!("extracted by {}", article.extractor)),
            ]
            .into_iter()
            .flatten()
            .collect();
            println!("{}\n", byline.join(" · "));
            println!("{}", text_block(&article.text));
            Ok(())
        }
    }
}

/// `articles search`: best match first, with a snippet.
pub async fn search(config: &Config, query: &str, limit: i64, json: bool) -> Result<(), CliError> {
    let limit = check_limit(limit)?;
    SearchQuery::parse(query).map_err(|refused| CliError::Usage(refused.to_string()))?;
    let store = open_store(config).await?;
    let hits = store.search(query, limit).await.context("searching")?;
    store.close().await;
    if json {
        return print_json(&hits);
    }
    if hits.is_empty() {
        println!("no article matches `{}`", one_line(query));
        return Ok(());
    }
    for hit in hits {
        let (title, feed) = (one_line(&hit.title), one_line(&hit.feed));
        println!("{:>6}  {title}  [{feed}]", hit.id);
        let snippet: String = hit.snippet.split_whitespace().collect::<Vec<_>>().join(" ");
        println!("        {}", one_line(&snippet));
    }
    Ok(())
}

/// `export`: one JSON object per line, ascending id, from `after_id` on. Reads in batches so
/// that any database size streams in constant memory.
pub async fn export(config: &Config, after_id: i64) -> Result<(), CliError> {
    let store = open_store(config).await?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut cursor = after_id;
    loop {
        let filter = ArticleFilter {
            after_id: Some(cursor),
            limit: EXPORT_BATCH,
            ascending: true,
            ..Default::default()
        };
        let batch = store
            .list_articles(&filter)
            .await
            .context("listing articles")?;
        let Some(last) = batch.last() else { break };
        cursor = last.id;
        for row in &batch {
            // An article deleted between the listing and the read is skipped.
            if let Some(article) = record(&store, row.id).await? {
                serde_json::to_writer(&mut out, &article).context("writing JSON")?;
                out.write_all(b"\n").context("writing to standard output")?;
            }
        }
    }
    out.flush().context("writing to standard output")?;
    store.close().await;
    Ok(())
}
