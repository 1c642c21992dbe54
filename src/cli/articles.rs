//! `gleaner articles list/show/search` and `gleaner export`: reading the article database.

use std::io::Write;

use super::table::{one_line, text_block};
use super::time::{parse_since, time_cell};
use super::{CliError, Context, ExportArgs, ListArgs, open_store, print_json, table};
use crate::config::Config;
use crate::format::BodyFormat;
use crate::store::claims::ClaimResult;
use crate::store::{
    ArticleFilter, ArticleRecord, Enclosure, EntryKind, FEED_EXTRACTOR, PageType, SearchQuery,
    Store, Verdict,
};

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
        before_id: None,
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

/// `articles list`: newest first.
pub async fn list(config: &Config, args: &ListArgs) -> Result<(), CliError> {
    let filter = ArticleFilter {
        feed: args.feed.clone(),
        since: parse_since(args.since.as_deref())?,
        after_id: args.after_id,
        before_id: None,
        limit: check_limit(args.limit)?,
        ascending: false,
        min_quality: args.min_quality,
        page_type: args.page_type,
        tag: args.tag.clone(),
    };
    let store = open_store(config).await?;
    let rows = match check_feed(config, &store, args.feed.as_deref()).await {
        Ok(()) => store
            .list_articles(&filter)
            .await
            .context("listing articles"),
        Err(error) => Err(error),
    };
    store.close().await;
    let rows = rows?;
    if args.output.is_json() {
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
                quality_cell(a.quality),
                cluster_cell(a.cluster_size, a.duplicate_of),
                type_mark(&a.page_type) + &title_cell(&a.title, &a.verdict, &a.extractor),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &["ID", "FEED", "PUBLISHED", "WORDS", "Q", "CLUSTER", "TITLE"],
            &cells,
            70
        )
    );
    Ok(())
}

/// `--feed NAME`: a name neither configured nor stored is a usage error (exit 2), never an
/// empty listing, as the API answers 404. A feed taken out of the configuration still names
/// its stored articles.
pub(super) async fn check_feed(
    config: &Config,
    store: &Store,
    name: Option<&str>,
) -> Result<(), CliError> {
    let Some(name) = name else { return Ok(()) };
    if config.feeds.iter().any(|feed| feed.name == name)
        || store
            .feed_by_name(name)
            .await
            .context("reading a feed")?
            .is_some()
    {
        return Ok(());
    }
    Err(CliError::Usage(format!(
        "no feed is named {name:?} (`gleaner feeds` lists them)"
    )))
}

/// The quality with two decimals, `-` when it was never estimated.
fn quality_cell(quality: Option<f64>) -> String {
    quality.map_or_else(|| "-".to_string(), |q| format!("{q:.2}"))
}

/// The size of the article's near-duplicate cluster, and the cluster's first article when
/// it is not this one: `-` for an article that repeats nothing, `3` for the first of three,
/// `3 (#12)` for a copy of article 12.
fn cluster_cell(size: i64, duplicate_of: Option<i64>) -> String {
    match duplicate_of {
        Some(first) => format!("{size} (#{first})"),
        None if size > 1 => size.to_string(),
        None => "-".to_string(),
    }
}

/// `(forum) ` before the title of a page that is not an article; nothing before an article's.
fn type_mark(page_type: &str) -> String {
    if page_type == PageType::Article.as_str() {
        String::new()
    } else {
        format!("({page_type}) ")
    }
}

/// The title, after what sets the article apart: `[teaser]`, or `[feed: blocked]` when the
/// text is the feed entry's own because the page was not an article.
fn title_cell(title: &str, verdict: &str, extractor: &str) -> String {
    match (
        extractor == FEED_EXTRACTOR,
        verdict == Verdict::Article.as_str(),
    ) {
        (true, _) => format!("[feed: {verdict}] {title}"),
        (false, false) => format!("[{verdict}] {title}"),
        (false, true) => title.to_string(),
    }
}

async fn record(store: &Store, id: i64) -> Result<Option<ArticleRecord>, CliError> {
    store.article_record(id).await.context("reading an article")
}

/// `articles show`: the text (with a short header), the stored HTML, or everything as JSON.
pub async fn show(config: &Config, id: i64, format: BodyFormat) -> Result<(), CliError> {
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
        BodyFormat::Json => print_json(&article),
        BodyFormat::Html => {
            println!("{}", text_block(&article.html));
            Ok(())
        }
        BodyFormat::Markdown => {
            println!("{}", text_block(&article.to_markdown()));
            Ok(())
        }
        BodyFormat::Text => {
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
                Some(source_line(&article)),
                article.quality.map(|q| format!("quality {q:.2}")),
                article
                    .duplicate_of
                    .map(|first| format!("repeats #{first}")),
                (article.page_type != PageType::Article.as_str())
                    .then(|| format!("page type {}", article.page_type)),
                (!article.posts.is_empty()).then(|| format!("{} posts", article.posts.len())),
                (article.kind != EntryKind::Article.as_str()).then(|| article.kind.clone()),
            ]
            .into_iter()
            .flatten()
            .collect();
            println!("{}", byline.join(" · "));
            if !article.tags.is_empty() {
                println!("tags: {}", one_line(&article.tags.join(", ")));
            }
            for enclosure in &article.enclosures {
                println!("{}", enclosure_line(enclosure));
            }
            for result in &article.results {
                println!("{}", result_line(result));
            }
            println!();
            if article.posts.is_empty() {
                println!("{}", text_block(&article.text));
            } else {
                print_posts(&article.posts);
            }
            Ok(())
        }
    }
}

/// One enclosure as a line under the byline: its address, then what the feed says of it
/// (media type, duration, size), a transcript marked as one.
fn enclosure_line(enclosure: &Enclosure) -> String {
    let mut about = Vec::new();
    if enclosure.transcript {
        about.push("transcript".to_string());
    }
    about.extend(
        enclosure
            .media_type
            .as_deref()
            .map(|t| one_line(t).into_owned()),
    );
    about.extend(enclosure.duration_text());
    about.extend(enclosure.length.map(|bytes| format!("{bytes} bytes")));
    let url = one_line(&enclosure.url);
    if about.is_empty() {
        format!("enclosure {url}")
    } else {
        format!("enclosure {url} ({})", about.join(", "))
    }
}

/// One consumer's result as a line under the byline: who, when, and the JSON it posted.
fn result_line(result: &ClaimResult) -> String {
    let at = result.done_at.format("%Y-%m-%d %H:%M");
    let consumer = one_line(&result.consumer);
    match &result.result {
        Some(value) => format!(
            "result of {consumer} ({at}): {}",
            one_line(&value.to_string())
        ),
        None => format!("result of {consumer} ({at}): none posted"),
    }
}

/// A thread's posts in order, each under a line with its number, author and date.
fn print_posts(posts: &[crate::store::Post]) {
    for (index, post) in posts.iter().enumerate() {
        let mut heading = vec![format!("#{}", index + 1)];
        heading.extend(post.author.as_deref().map(|a| one_line(a).into_owned()));
        heading.extend(
            post.published_at
                .as_deref()
                .map(|t| one_line(t).into_owned()),
        );
        println!("── {}", heading.join(" · "));
        println!("{}\n", text_block(&post.text));
    }
}

/// Where the text comes from, and what the page was when that is not simply an article.
fn source_line(article: &ArticleRecord) -> String {
    let verdict = article.verdict.as_str();
    match (
        article.extractor == FEED_EXTRACTOR,
        verdict == Verdict::Article.as_str(),
    ) {
        (true, _) => format!("the feed's own text (page: {verdict})"),
        (false, false) => format!("extracted by {} ({verdict})", article.extractor),
        (false, true) => format!("extracted by {}", article.extractor),
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

/// `export`: one JSON object per line, ascending id, from `--after-id` on (with
/// `--min-quality`, articles below it are left out; with `--page-type`, those of other types). Reads in batches so that any database
/// size streams in constant memory.
pub async fn export(config: &Config, args: &ExportArgs) -> Result<(), CliError> {
    let markdown_dir = match (args.format.as_str(), &args.dir) {
        ("markdown", Some(dir)) => Some(dir),
        ("markdown", None) => {
            return Err(CliError::Usage(
                "--format markdown writes one file per article: name the directory with --dir"
                    .to_string(),
            ));
        }
        (_, Some(dir)) => {
            return Err(CliError::Usage(format!(
                "--dir {} is where --format markdown writes; JSON lines go to standard output: \
                 add --format markdown, or leave --dir out",
                dir.display()
            )));
        }
        _ => None,
    };
    let since = parse_since(args.since.as_deref())?;
    // The database first: without one, no directory is left behind.
    let store = open_store(config).await?;
    if let Err(error) = check_feed(config, &store, args.feed.as_deref()).await {
        store.close().await;
        return Err(error);
    }
    let mut sink = match markdown_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            ExportSink::Markdown(dir.clone())
        }
        None => ExportSink::Lines(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut cursor = args.after_id;
    loop {
        let filter = ArticleFilter {
            feed: args.feed.clone(),
            since,
            after_id: Some(cursor),
            before_id: None,
            limit: EXPORT_BATCH,
            ascending: true,
            min_quality: args.min_quality,
            page_type: args.page_type,
            tag: args.tag.clone(),
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
                sink.write(&article)?;
            }
        }
    }
    sink.finish()?;
    store.close().await;
    Ok(())
}

/// Where `export` writes: JSON lines on standard output, or a Markdown file per article.
enum ExportSink<'a> {
    Lines(std::io::BufWriter<std::io::StdoutLock<'a>>),
    Markdown(std::path::PathBuf),
}

impl ExportSink<'_> {
    fn write(&mut self, article: &ArticleRecord) -> Result<(), CliError> {
        match self {
            ExportSink::Lines(out) => {
                serde_json::to_writer(&mut *out, article).context("writing JSON")?;
                out.write_all(b"\n").context("writing to standard output")
            }
            ExportSink::Markdown(dir) => {
                let path = dir.join(format!("{}.md", article.id));
                std::fs::write(&path, article.to_markdown())
                    .with_context(|| format!("writing {}", path.display()))
            }
        }
    }

    fn finish(self) -> Result<(), CliError> {
        match self {
            ExportSink::Lines(mut out) => out.flush().context("writing to standard output"),
            ExportSink::Markdown(_) => Ok(()),
        }
    }
}
