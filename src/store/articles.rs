//! Articles and their images: the one-transaction write, reads, listings and search.

use super::model::*;
use super::{QueryContext, Store, StoreError, db_time, now, on_pool, sql};

/// An image row as written: its bytes' identity when downloaded now or before.
struct ImageRow<'a> {
    image: &'a NewImage,
    mime: Option<String>,
    size: Option<i64>,
    sha256: Option<String>,
}

/// The rows for `images` and the blobs to store with them. An image without new bytes keeps
/// the identity of an earlier download of the same URL (`previous`), as after re-extraction.
fn image_rows<'a>(
    images: &'a [NewImage],
    previous: &[StoredImage],
) -> (Vec<ImageRow<'a>>, Vec<(String, &'a ImageContent)>) {
    let mut rows = Vec::with_capacity(images.len());
    let mut blobs = Vec::new();
    for image in images {
        let row = match &image.content {
            Some(content) => {
                let sha256 = sha256_hex(&content.bytes);
                blobs.push((sha256.clone(), content));
                ImageRow {
                    image,
                    mime: Some(content.mime.clone()),
                    size: Some(content.bytes.len() as i64),
                    sha256: Some(sha256),
                }
            }
            None => {
                let earlier = previous
                    .iter()
                    .find(|old| old.url == image.url && old.sha256.is_some());
                ImageRow {
                    image,
                    mime: earlier.and_then(|old| old.mime.clone()),
                    size: earlier.and_then(|old| old.size),
                    sha256: earlier.and_then(|old| old.sha256.clone()),
                }
            }
        };
        rows.push(row);
    }
    (rows, blobs)
}

/// Writes blobs (once per SHA-256) and image rows in positions 0.. inside transaction `$tx`.
macro_rules! insert_images {
    ($tx:ident, $article_id:expr, $rows:expr, $blobs:expr, $stored_at:expr) => {
        for (sha256, content) in $blobs {
            sqlx::query(sql::INSERT_IMAGE_BLOB)
                .bind(sha256)
                .bind(&content.mime)
                .bind(content.bytes.len() as i64)
                .bind(&content.bytes)
                .bind($stored_at)
                .execute(&mut *$tx)
                .await
                .context("storing image bytes")?;
        }
        for (position, row) in $rows.iter().enumerate() {
            sqlx::query(sql::INSERT_IMAGE)
                .bind($article_id)
                .bind(position as i64)
                .bind(&row.image.url)
                .bind(&row.image.alt)
                .bind(&row.image.caption)
                .bind(row.image.width)
                .bind(row.image.height)
                .bind(&row.mime)
                .bind(row.size)
                .bind(&row.sha256)
                .execute(&mut *$tx)
                .await
                .context("storing an image")?;
        }
    };
}

/// A new extraction of a stored article, from its raw page.
#[derive(Debug, Clone, PartialEq)]
pub struct Reextraction {
    pub extractor: String,
    pub confidence: f64,
    pub text: String,
    pub html: String,
    /// Without bytes: images whose URL was downloaded before keep those bytes.
    pub images: Vec<NewImage>,
}

impl Store {
    /// Stores an article with its images in one transaction. An article already stored (same
    /// normalized URL, or same GUID in the same feed) is left as it is and reported as a
    /// duplicate. Image bytes are stored once per SHA-256.
    pub async fn insert_article(&self, article: &NewArticle) -> Result<InsertOutcome, StoreError> {
        let word_count = word_count(&article.text);
        let content_hash = sha256_hex(article.text.as_bytes());
        let (rows, blobs) = image_rows(&article.images, &[]);
        let stored_at = now();

        on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            sqlx::query(self.sql(&sql::LOCK_ARTICLE_CURSOR))
                .execute(&mut *tx)
                .await
                .context("locking the article cursor")?;
            let inserted: Option<i64> = sqlx::query_scalar(sql::INSERT_ARTICLE)
                .bind(article.feed_id)
                .bind(&article.guid)
                .bind(&article.url)
                .bind(&article.canonical_url)
                .bind(&article.title)
                .bind(&article.author)
                .bind(&article.summary)
                .bind(article.published_at.map(db_time))
                .bind(db_time(article.fetched_at))
                .bind(&article.language)
                .bind(&article.extractor)
                .bind(article.confidence)
                .bind(&article.text)
                .bind(&article.html)
                .bind(word_count)
                .bind(&content_hash)
                .bind(article.raw_page.as_ref().map(CompressedPage::as_gzip))
                .bind(&article.raw_content_type)
                .fetch_optional(&mut *tx)
                .await
                .context("inserting an article")?;
            let Some(id) = inserted else {
                let existing: i64 = sqlx::query_scalar(sql::SELECT_KNOWN_ARTICLE)
                    .bind(&article.url)
                    .bind(article.feed_id)
                    .bind(&article.guid)
                    .fetch_one(&mut *tx)
                    .await
                    .context("finding the article an insert duplicated")?;
                tx.rollback().await.context("ending a transaction")?;
                return Ok(InsertOutcome::Duplicate(existing));
            };
            insert_images!(tx, id, &rows, &blobs, stored_at);
            sqlx::query(self.sql(&sql::NOTIFY_NEW_ARTICLE))
                .bind(id.to_string())
                .execute(&mut *tx)
                .await
                .context("announcing a new article")?;
            tx.commit().await.context("committing an article")?;
            Ok(InsertOutcome::Inserted(id))
        })
    }

    /// Replaces the extracted text, HTML and images of a stored article in one transaction
    /// (`gleaner reextract`). Returns false when there is no such article.
    pub async fn replace_extraction(
        &self,
        id: i64,
        extraction: &Reextraction,
    ) -> Result<bool, StoreError> {
        let previous = self.article_images(id).await?;
        let (rows, blobs) = image_rows(&extraction.images, &previous);
        let stored_at = now();
        on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            let updated = sqlx::query(sql::UPDATE_EXTRACTION)
                .bind(id)
                .bind(&extraction.extractor)
                .bind(extraction.confidence)
                .bind(&extraction.text)
                .bind(&extraction.html)
                .bind(word_count(&extraction.text))
                .bind(sha256_hex(extraction.text.as_bytes()))
                .execute(&mut *tx)
                .await
                .context("updating an article's extraction")?
                .rows_affected();
            if updated == 0 {
                tx.rollback().await.context("ending a transaction")?;
                return Ok(false);
            }
            sqlx::query(sql::DELETE_ARTICLE_IMAGES)
                .bind(id)
                .execute(&mut *tx)
                .await
                .context("replacing an article's images")?;
            insert_images!(tx, id, &rows, &blobs, stored_at);
            tx.commit().await.context("committing a re-extraction")?;
            Ok(true)
        })
    }

    /// The id of the stored article an entry would duplicate, if any: same normalized URL,
    /// or same GUID in the same feed. Lets the pipeline skip the download.
    pub async fn known_article(
        &self,
        feed_id: i64,
        guid: Option<&str>,
        url: &str,
    ) -> Result<Option<i64>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_scalar(sql::SELECT_KNOWN_ARTICLE)
                .bind(url)
                .bind(feed_id)
                .bind(guid)
                .fetch_optional(pool)
                .await
        })
        .context("looking up a known article")
    }

    pub async fn article(&self, id: i64) -> Result<Option<Article>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_ARTICLE).bind(id).fetch_optional(pool).await
        })
        .context("reading an article")
    }

    /// The raw page of an article as downloaded, with its `Content-Type`, for re-extraction.
    pub async fn raw_page(
        &self,
        id: i64,
    ) -> Result<Option<(CompressedPage, Option<String>)>, StoreError> {
        let row: Option<(Option<Vec<u8>>, Option<String>)> = on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_RAW_PAGE).bind(id).fetch_optional(pool).await
        })
        .context("reading a raw page")?;
        Ok(row.and_then(|(page, content_type)| {
            page.map(|gzip| (CompressedPage::from_gzip(gzip), content_type))
        }))
    }

    pub async fn list_articles(
        &self,
        filter: &ArticleFilter,
    ) -> Result<Vec<ArticleSummary>, StoreError> {
        let statement = if filter.ascending {
            sql::LIST_ARTICLES_ASCENDING
        } else {
            sql::LIST_ARTICLES_NEWEST_FIRST
        };
        on_pool!(self, pool => {
            sqlx::query_as(statement)
                .bind(&filter.feed)
                .bind(filter.since.map(db_time))
                .bind(filter.after_id)
                .bind(filter.limit.max(0))
                .fetch_all(pool)
                .await
        })
        .context("listing articles")
    }

    /// The images of an article, in document order.
    pub async fn article_images(&self, article_id: i64) -> Result<Vec<StoredImage>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_ARTICLE_IMAGES).bind(article_id).fetch_all(pool).await
        })
        .context("reading an article's images")
    }

    /// Downloaded image bytes by SHA-256 (lowercase hex).
    pub async fn image_blob(&self, sha256: &str) -> Result<Option<ImageBlob>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_IMAGE_BLOB).bind(sha256).fetch_optional(pool).await
        })
        .context("reading image bytes")
    }
}

/// Words of a text: whitespace-separated pieces with at least one letter or digit (a lone
/// dash is not a word).
fn word_count(text: &str) -> i64 {
    text.split_whitespace()
        .filter(|piece| piece.chars().any(char::is_alphanumeric))
        .count() as i64
}
