//! The JSON of one article as `export` writes it and a webhook posts it: one shape, read
//! once, so the two never drift.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::claims::ClaimResult;
use super::{Article, ArticleMetadata, Post, Store, StoreError, StoredImage};

/// One article with its images: the JSON of `articles show --format json`, of `export`, and
/// of a webhook delivery. Its fields are a public interface (docs/webhooks.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArticleRecord {
    pub id: i64,
    pub feed: String,
    pub url: String,
    pub canonical_url: Option<String>,
    pub guid: Option<String>,
    pub title: String,
    pub author: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub fetched_at: DateTime<Utc>,
    pub language: Option<String>,
    /// The algorithm that produced the text, or `feed` when it is the feed entry's own.
    pub extractor: String,
    pub confidence: f64,
    /// What the page was (`article`, `teaser`; with `extractor = feed`, also `blocked`,
    /// `not_found`, …).
    pub verdict: String,
    /// The text's expected F1 in [0, 1]; `null` for articles stored before it was estimated.
    pub quality: Option<f64>,
    /// `null`, or the id of the representative of the near-duplicate cluster this one repeats
    /// (the same story from another feed or site); every member points at the first.
    pub duplicate_of: Option<i64>,
    pub word_count: i64,
    pub content_hash: String,
    /// The feed's summary, sanitized HTML (before migration 0012: as the feed gave it).
    pub summary: Option<String>,
    /// The summary's plain text.
    pub summary_text: Option<String>,
    pub text: String,
    pub html: String,
    pub images: Vec<ImageRecord>,
    /// Where author and date were read, the lead image and site name (flattened).
    #[serde(flatten)]
    pub metadata: ArticleMetadata,
    /// What kind of page it was (`article`, `forum`, `product`, `collection`, `listing`,
    /// `documentation`, `service`).
    pub page_type: String,
    /// A forum thread's posts in page order, `{author, published_at, text}` each; `[]` on
    /// every other page.
    pub posts: Vec<Post>,
    /// What the feed entry is (`article`, `video`, `audio`, `post`).
    pub kind: String,
    /// The entry's enclosures and media, `{url, media_type, length, duration_seconds,
    /// thumbnail_url}` each; `[]` when none.
    pub enclosures: Vec<super::Enclosure>,
    /// The article's tags (its entries' categories and its feeds' configured tags), sorted
    /// without regard to case; `[]` when none.
    pub tags: Vec<String>,
    /// What consumers reported with `POST /claims/{id}/done`, `{consumer, done_at, result}`
    /// each, by consumer; the key is left out while no consumer has reported the article.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<ClaimResult>,
}

impl ArticleRecord {
    /// What its Markdown's front matter says of it.
    pub fn front_matter(&self) -> crate::markdown::FrontMatter<'_> {
        crate::markdown::FrontMatter {
            title: Some(&self.title),
            url: Some(self.canonical_url.as_deref().unwrap_or(&self.url)),
            feed: Some(&self.feed),
            author: self.author.as_deref(),
            published_at: self.published_at,
            language: self.language.as_deref(),
            id: Some(self.id),
            verdict: Some(&self.verdict),
            quality: self.quality,
            duplicate_of: self.duplicate_of,
            page_type: Some(&self.page_type),
            tags: &self.tags,
            kind: Some(&self.kind),
            enclosures: &self.enclosures,
        }
    }

    /// The article as Markdown: front matter, then the body; a thread's body is its posts, one
    /// section each, its author and date on the section's first line.
    pub fn to_markdown(&self) -> String {
        let document = if self.posts.is_empty() {
            crate::markdown::document(&self.front_matter(), &self.html)
        } else {
            crate::markdown::thread_document(&self.front_matter(), &self.posts)
        };
        self.with_results_yaml(document)
    }

    /// The front matter [`ArticleRecord::front_matter`] writes, with the consumers' results.
    pub fn front_matter_yaml(&self) -> String {
        self.with_results_yaml(self.front_matter().to_yaml())
    }

    /// `document` (front matter first) with a `results` list at the end of its front matter
    /// when consumers reported the article: each one's name, time and result, the result as
    /// its JSON text in one quoted string (a YAML reader gives back the JSON to parse).
    fn with_results_yaml(&self, mut document: String) -> String {
        if self.results.is_empty() {
            return document;
        }
        let quoted = crate::markdown::yaml_quoted;
        let mut yaml = String::from("results:\n");
        for result in &self.results {
            let at = result
                .done_at
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            yaml.push_str(&format!("  - consumer: {}\n", quoted(&result.consumer)));
            yaml.push_str(&format!("    done_at: {}\n", quoted(&at)));
            if let Some(value) = &result.result {
                yaml.push_str(&format!("    result: {}\n", quoted(&value.to_string())));
            }
        }
        // The front matter opens with a `---` line and ends at the next one (every value in
        // it is one line: its strings are quoted, line breaks escaped).
        if let Some(end) = document.get(3..).and_then(|rest| rest.find("\n---\n")) {
            document.insert_str(3 + end + 1, &yaml);
        }
        document
    }
}

/// One image of an [`ArticleRecord`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageRecord {
    pub url: String,
    pub alt: Option<String>,
    pub caption: Option<String>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub sha256: Option<String>,
    pub mime: Option<String>,
}

impl ArticleRecord {
    pub fn new(article: Article, images: Vec<StoredImage>) -> Self {
        ArticleRecord {
            id: article.id,
            feed: article.feed,
            url: article.url,
            canonical_url: article.canonical_url,
            guid: article.guid,
            title: article.title,
            author: article.author,
            published_at: article.published_at,
            fetched_at: article.fetched_at,
            language: article.language,
            extractor: article.extractor,
            confidence: article.confidence,
            verdict: article.verdict,
            quality: article.quality,
            duplicate_of: article.duplicate_of,
            word_count: article.word_count,
            content_hash: article.content_hash,
            summary: article.summary,
            summary_text: article.summary_text,
            text: article.text,
            html: article.html,
            images: images
                .into_iter()
                .map(|image| ImageRecord {
                    url: image.url,
                    alt: image.alt,
                    caption: image.caption,
                    width: image.width,
                    height: image.height,
                    sha256: image.sha256,
                    mime: image.mime,
                })
                .collect(),
            metadata: article.metadata,
            page_type: article.page_type,
            posts: article.posts,
            kind: article.kind,
            enclosures: article.enclosures,
            tags: article.tags,
            results: Vec::new(),
        }
    }
}

impl Store {
    /// One article with its images and its consumers' results, as `export` writes it;
    /// `None` when there is no such article (pruned or purged meanwhile).
    pub async fn article_record(&self, id: i64) -> Result<Option<ArticleRecord>, StoreError> {
        let Some(article) = self.article(id).await? else {
            return Ok(None);
        };
        let images = self.article_images(id).await?;
        let mut record = ArticleRecord::new(article, images);
        record.results = self.results_of_article(id).await?;
        Ok(Some(record))
    }
}
