//! `gleaner reextract`: extract again from the stored raw pages, without downloading.
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
//! (`extractor = feed`) keeps no raw page and is left as it is.

use futures::StreamExt;

use super::{CliError, Context};
use crate::config::Config;
use crate::extract::{Algorithm, SiteKnowledge, extract_site_page, template};
use crate::fetch::charset_of;
use crate::store::{NewImage, Reextraction, Store};

const BATCH: i64 = 200;

enum Outcome {
    Updated,
    NoRawPage,
    Failed,
}

pub async fn run(
    config: &Config,
    algorithm: Option<&str>,
    feed: Option<&str>,
) -> Result<(), CliError> {
    let chosen = match algorithm {
        Some(name) => Some(
            name.parse::<Algorithm>()
                .map_err(|e| CliError::Usage(e.to_string()))?,
        ),
        None => None,
    };
    let algorithm_of = |feed: &str| {
        let configured = config.feeds.iter().find(|f| f.name == feed);
        chosen
            .or(configured.and_then(|f| f.algorithm))
            .unwrap_or(config.extract.algorithm)
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
    let (mut updated, mut no_raw, mut failed) = (0usize, 0usize, 0usize);
    let mut cursor = 0;
    loop {
        let batch = super::articles::batch_after(&store, feed, cursor, BATCH).await?;
        let Some(last) = batch.last() else { break };
        cursor = last.id;
        let outcomes: Vec<Outcome> = futures::stream::iter(batch)
            .map(|row| {
                let store = store.clone();
                let algorithm = algorithm_of(&row.feed);
                async move { reextract_one(&store, row.id, algorithm, config).await }
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

async fn reextract_one(store: &Store, id: i64, algorithm: Algorithm, config: &Config) -> Outcome {
    let templates = config.extract.site_templates;
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
    let title = article.title.clone();
    let rules = url.as_ref().and_then(|url| config.sites.for_url(url));
    let site = url
        .as_ref()
        .and_then(template::site_of)
        .filter(|_| templates);
    let model = match &site {
        Some(site) => store.site_template(site).await.unwrap_or_else(|error| {
            tracing::warn!(article = id, %error, "cannot read the site template");
            None
        }),
        None => None,
    };
    let extracted = tokio::task::spawn_blocking(move || {
        let bytes = page.decompress()?;
        let charset = content_type.as_deref().and_then(charset_of);
        Ok::<_, std::io::Error>(
            extract_site_page(
                &bytes,
                charset,
                url.as_ref(),
                crate::extract::EntryHints::title(Some(title.as_str()).filter(|t| !t.is_empty())),
                algorithm,
                SiteKnowledge {
                    template: model.as_deref(),
                    rules: rules.as_deref(),
                },
            )
            .extraction,
        )
    })
    .await;
    let extraction = match extracted {
        Ok(Ok(Ok(extraction))) => extraction,
        Ok(Ok(Err(error))) => {
            tracing::warn!(article = id, %error, "extraction failed; the stored text is kept");
            return Outcome::Failed;
        }
        Ok(Err(error)) => {
            tracing::warn!(article = id, %error, "the stored raw page is unreadable");
            return Outcome::Failed;
        }
        Err(error) => {
            tracing::error!(article = id, %error, "extraction panicked");
            return Outcome::Failed;
        }
    };
    let replacement = Reextraction {
        extractor: extraction.algorithm.name().to_string(),
        confidence: extraction.confidence,
        verdict: extraction.verdict,
        quality: extraction.quality,
        text: extraction.text,
        html: extraction.html,
        images: extraction
            .images
            .into_iter()
            .map(|image| NewImage {
                url: image.url,
                alt: image.alt,
                caption: image.caption,
                width: image.width.map(i64::from),
                height: image.height.map(i64::from),
                content: None,
            })
            .collect(),
    };
    match store.replace_extraction(id, &replacement).await {
        Ok(true) => Outcome::Updated,
        Ok(false) => Outcome::NoRawPage,
        Err(error) => {
            tracing::warn!(article = id, %error, "cannot store the new extraction");
            Outcome::Failed
        }
    }
}
