//! The reads of an outbound feed's page (`GET /outputs/{name}.atom|.json`), one statement per
//! kind for all its items: their fields but the body ([`OutputItemHead`]), their images, one
//! consumer's done claims, and, last, their bodies. The heads, images and claims are what
//! the page's validators are made of, so a conditional GET answered 304 reads no body; the
//! ids go in as one JSON array (`json_each`, `json_array_elements_text`), as the lease
//! renewals' do.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::articles::sort_tags;
use super::claims::{ClaimResult, ClaimRow};
use super::{QueryContext, Store, StoreError, StoredImage, on_pool, sql};

/// What an outbound feed's item shows of its article, but its body; `content_hash` (its
/// text's digest) and `extractor` stand for the body in the page's validators.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct OutputItemHead {
    pub id: i64,
    pub url: String,
    pub canonical_url: Option<String>,
    pub title: String,
    pub author: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub fetched_at: DateTime<Utc>,
    pub extractor: String,
    pub content_hash: String,
    pub lead_image_url: Option<String>,
    /// Its tags (`article_tags`), sorted as [`super::Article`]'s are.
    #[sqlx(json)]
    pub tags: Vec<String>,
}

/// One image row of a batch, with the article it belongs to.
#[derive(sqlx::FromRow)]
struct ArticleImage {
    article_id: i64,
    #[sqlx(flatten)]
    image: StoredImage,
}

/// The ids as the statements take them: a JSON array.
fn id_array(ids: &[i64]) -> String {
    serde_json::Value::from(ids).to_string()
}

impl Store {
    /// The heads of the articles of `ids` still stored, in the order of `ids`.
    pub async fn output_item_heads(&self, ids: &[i64]) -> Result<Vec<OutputItemHead>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let statement = self.sql(&sql::SELECT_OUTPUT_ITEM_HEADS);
        let rows: Vec<OutputItemHead> = on_pool!(self, pool => {
            sqlx::query_as(statement).bind(id_array(ids)).fetch_all(pool).await
        })
        .context("reading an output's items")?;
        let mut by_id: HashMap<i64, OutputItemHead> =
            rows.into_iter().map(|head| (head.id, head)).collect();
        Ok(ids
            .iter()
            .filter_map(|id| by_id.remove(id))
            .map(|mut head| {
                sort_tags(&mut head.tags);
                head
            })
            .collect())
    }

    /// The stored HTML bodies of the articles of `ids`, by id.
    pub async fn article_bodies(&self, ids: &[i64]) -> Result<HashMap<i64, String>, StoreError> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let statement = self.sql(&sql::SELECT_ARTICLE_BODIES);
        let rows: Vec<(i64, String)> = on_pool!(self, pool => {
            sqlx::query_as(statement).bind(id_array(ids)).fetch_all(pool).await
        })
        .context("reading articles' bodies")?;
        Ok(rows.into_iter().collect())
    }

    /// The images of the articles of `ids`, by article, each article's in page order
    /// ([`Store::article_images`] of each).
    pub async fn images_of_articles(
        &self,
        ids: &[i64],
    ) -> Result<HashMap<i64, Vec<StoredImage>>, StoreError> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let statement = self.sql(&sql::SELECT_IMAGES_OF_ARTICLES);
        let rows: Vec<ArticleImage> = on_pool!(self, pool => {
            sqlx::query_as(statement).bind(id_array(ids)).fetch_all(pool).await
        })
        .context("reading articles' images")?;
        let mut images: HashMap<i64, Vec<StoredImage>> = HashMap::new();
        for row in rows {
            images.entry(row.article_id).or_default().push(row.image);
        }
        Ok(images)
    }

    /// `consumer`'s results of the articles of `ids` it is done with, by article.
    pub async fn results_of_articles(
        &self,
        ids: &[i64],
        consumer: &str,
    ) -> Result<HashMap<i64, ClaimResult>, StoreError> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let statement = self.sql(&sql::SELECT_CLAIMS_OF_ARTICLES);
        let rows: Vec<ClaimRow> = on_pool!(self, pool => {
            sqlx::query_as(statement)
                .bind(id_array(ids))
                .bind(consumer)
                .fetch_all(pool)
                .await
        })
        .context("reading claims")?;
        Ok(rows
            .into_iter()
            .filter_map(|row| {
                let article_id = row.article_id;
                ClaimResult::of(row.into()).map(|result| (article_id, result))
            })
            .collect())
    }
}
