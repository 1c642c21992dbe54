//! `gleaner reextract`: extract again from the stored raw pages, without downloading.
//!
//! A page is extracted by the pipeline's own step (`pipeline::extraction`): the same
//! extraction permits and `[extract] timeout_seconds`, the same stored fields (text without
//! control characters, language, the page's metadata, images, `max_text_bytes`). The author
//! and date the article took from its feed entry stay; what it read from its page is read
//! again.
//!
//! Walks the articles in id order in batches; each page is decompressed and extracted on the
//! blocking pool, as many at a time as there are cores, and its text, HTML and images are
//! replaced in one transaction. Images keep the bytes downloaded earlier for the same URL.
//! With `[extract] site_templates` on, each page is extracted with its site's current
//! template model, so older articles lose the boilerplate learned since they were stored; a
//! site with `[[sites]]` rules is extracted by them. Without `--algorithm`, each article is
//! extracted with its feed's `algorithm`, else `[extract] algorithm`. The new verdict and
//! quality are stored with the text, whatever the verdict: an article stored from a page the
//! current rules judge `blocked` says so. An article stored from its feed entry's own text
//! (`extractor = feed`) keeps no raw page and is left as it is. A page type configured for the
//! article's site (`[[sites]] page_type`), else for its feed, is the page type it is stored as,
//! as in a poll.

use futures::StreamExt;

use super::{CliError, Context};
use crate::config::Config;
use crate::extract::metadata::MetadataSource;
use crate::extract::{Algorithm, EntryHints, ExtractError, template};
use crate::fetch::charset_of;
use crate::pipeline::InFlight;
use crate::pipeline::extraction::{
    FeedFacts, OffRuntimeError, RawPage, SiteSetup, cap_posts, cap_stored, extract_page,
    off_runtime, page_fields,
};
use crate::store::{Article, PageFields, PageType, Store};

const BATCH: i64 = 200;

enum Outcome {
    Updated,
    NoRawPage,
    Failed,
}

pub async fn run(
    config: &Config,
    chosen: Option<Algorithm>,
    feed: Option<&str>,
) -> Result<(), CliError> {
    let algorithm_of = |feed: &str| {
        let configured = config.feeds.iter().find(|f| f.name == feed);
        let algorithm = chosen
            .or(configured.and_then(|f| f.algorithm))
            .unwrap_or(config.extract.algorithm);
        (algorithm, configured.and_then(|f| f.page_type))
    };
    let store = super::open_store(config).await?;
    if let Some(feed) = feed
        && store
            .feed_by_name(feed)
            .await
            .context("reading feeds")?
            .is_none()
    {
        return Err(CliError::Usage(format!(
            "no feed named `{feed}` in the database"
        )));
    }
    let parallel = std::thread::available_parallelism().map_or(2, usize::from);
    // Extraction permits as in a poll: as many pages extracted at once as there are cores.
    let in_flight = InFlight::default();
    let (mut updated, mut no_raw, mut failed) = (0usize, 0usize, 0usize);
    let mut cursor = 0;
    loop {
        let batch = super::articles::batch_after(&store, feed, cursor, BATCH).await?;
        let Some(last) = batch.last() else { break };
        cursor = last.id;
        let outcomes: Vec<Outcome> = futures::stream::iter(batch)
            .map(|row| {
                let (store, in_flight) = (store.clone(), in_flight.clone());
                let algorithm = algorithm_of(&row.feed);
                async move { reextract_one(&store, &in_flight, row.id, algorithm, config).await }
            })
            .buffer_unordered(parallel)
            .collect()
            .await;
        for outcome in outcomes {
            match outcome {
                Outcome::Updated => updated += 1,
                Outcome::NoRawPage => no_raw += 1,
                Outcome::Failed => failed += 1,
            }
        }
    }
    store.close().await;
    let algorithm = chosen.unwrap_or(config.extract.algorithm);
    println!(
        "algorithm={algorithm} reextracted={updated} failed={failed} without_raw_page={no_raw}"
    );
    Ok(())
}

/// Extracts article `id` again from its raw page, as a poll would extract the page now
/// ([`crate::pipeline::extraction`]), and replaces what the article took from its page.
async fn reextract_one(
    store: &Store,
    in_flight: &InFlight,
    id: i64,
    (algorithm, feed_page_type): (Algorithm, Option<PageType>),
    config: &Config,
) -> Outcome {
    let (raw, article) = match (store.raw_page(id).await, store.article(id).await) {
        (Ok(Some((raw, content_type))), Ok(Some(article))) => ((raw, content_type), article),
        (Ok(None), _) => return Outcome::NoRawPage,
        (Err(error), _) | (_, Err(error)) => {
            tracing::warn!(article = id, %error, "cannot read the article");
            return Outcome::Failed;
        }
        (_, Ok(None)) => return Outcome::NoRawPage,
    };
    let (page, content_type) = raw;
    let url = url::Url::parse(article.canonical_url.as_deref().unwrap_or(&article.url)).ok();
    let site = SiteSetup {
        algorithm,
        template: site_model(store, url.as_ref(), config, id).await,
        rules: url.as_ref().and_then(|url| config.sites.for_url(url)),
    };
    let title = article.title.clone();
    let page_type = url
        .as_ref()
        .and_then(|url| config.sites.page_type_for(url))
        .or(feed_page_type);
    let feed = FeedFacts {
        page_type,
        ..feed_facts(&article)
    };
    let max_text = config.extract.max_text_bytes;
    let job = move || {
        let bytes = page.decompress()?;
        let raw = RawPage {
            bytes: &bytes,
            charset: content_type.as_deref().and_then(charset_of),
            url: url.as_ref(),
        };
        let hints = EntryHints {
            page_type,
            ..EntryHints::title(Some(title.as_str()).filter(|t| !t.is_empty()))
        };
        let extracted = extract_page(raw, hints, &site);
        if let Some(cut) = extracted.cut {
            tracing::warn!(article = id, %cut, "page longer than extraction reads");
        }
        Ok::<_, std::io::Error>(extracted.extraction.map(|extraction| {
            let mut fields = page_fields(extraction, &extracted.metadata, feed);
            if let Some(sizes) = cap_stored(&mut fields.text, &mut fields.html, max_text) {
                tracing::warn!(article = id, %sizes, "article stored cut");
            }
            if cap_posts(&mut fields.posts, max_text) {
                tracing::warn!(article = id, "thread's posts stored cut");
            }
            fields
        }))
    };
    let Some(fields) = settled(
        off_runtime(in_flight, config.extract.timeout, job).await,
        id,
    ) else {
        return Outcome::Failed;
    };
    match store.replace_extraction(id, &fields).await {
        Ok(true) => Outcome::Updated,
        Ok(false) => Outcome::NoRawPage,
        Err(error) => {
            tracing::warn!(article = id, %error, "cannot store the new extraction");
            Outcome::Failed
        }
    }
}

/// The new fields of a re-extraction, or `None` with the reason the stored text is kept
/// logged.
fn settled(
    result: Result<Result<Result<PageFields, ExtractError>, std::io::Error>, OffRuntimeError>,
    id: i64,
) -> Option<PageFields> {
    match result {
        Ok(Ok(Ok(fields))) => Some(fields),
        Ok(Ok(Err(error))) => {
            tracing::warn!(article = id, %error, "extraction failed; the stored text is kept");
            None
        }
        Ok(Err(error)) => {
            tracing::warn!(article = id, %error, "the stored raw page is unreadable");
            None
        }
        Err(error) => {
            tracing::error!(article = id, %error, "the stored text is kept");
            None
        }
    }
}

/// The site's template model when `[extract] site_templates` is on and the site has one.
async fn site_model(
    store: &Store,
    url: Option<&url::Url>,
    config: &Config,
    id: i64,
) -> Option<std::sync::Arc<template::SiteTemplate>> {
    let site = url
        .and_then(template::site_of)
        .filter(|_| config.extract.site_templates)?;
    store.site_template(&site).await.unwrap_or_else(|error| {
        tracing::warn!(article = id, %error, "cannot read the site template");
        None
    })
}

/// The author and date the article took from its feed entry: they go before the page's
/// again. What was read from the page is read again.
fn feed_facts(article: &Article) -> FeedFacts {
    let from_feed =
        |source: &Option<String>| source.as_deref() == Some(MetadataSource::Feed.as_str());
    FeedFacts {
        author: article
            .author
            .clone()
            .filter(|_| from_feed(&article.metadata.author_source)),
        published_at: article
            .published_at
            .filter(|_| from_feed(&article.metadata.published_source)),
        page_type: None,
    }
}
