//! Articles and their images: the one-transaction write, reads, listings and search.

use chrono::{DateTime, Utc};

use super::duplicates::NearDuplicates as _;
use super::model::*;
use super::ownership::{Listing, Listings as _};
use super::{
    Backend, QueryContext, Store, StoreError, WriteKind, db_time, now, on_pool, sql,
    update_entry_attempt,
};
use crate::fingerprint::Fingerprint;

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

/// Writes the image rows of an article in positions 0..: one statement per row on SQLite
/// (in-process, no round trip), one statement for all of them on PostgreSQL, where each round
/// trip would be paid while the cursor lock is held.
trait ImageRows {
    async fn insert(&mut self, article_id: i64, rows: &[ImageRow<'_>]) -> Result<(), StoreError>;
}

impl ImageRows for sqlx::SqliteConnection {
    async fn insert(&mut self, article_id: i64, rows: &[ImageRow<'_>]) -> Result<(), StoreError> {
        for (position, row) in rows.iter().enumerate() {
            sqlx::query(sql::INSERT_IMAGE)
                .bind(article_id)
                .bind(position as i64)
                .bind(&row.image.url)
                .bind(&row.image.alt)
                .bind(&row.image.caption)
                .bind(row.image.width)
                .bind(row.image.height)
                .bind(&row.mime)
                .bind(row.size)
                .bind(&row.sha256)
                .execute(&mut *self)
                .await
                .context("storing an image")?;
        }
        Ok(())
    }
}

impl ImageRows for sqlx::PgConnection {
    async fn insert(&mut self, article_id: i64, rows: &[ImageRow<'_>]) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        let column =
            |pick: fn(&ImageRow<'_>) -> Option<String>| rows.iter().map(pick).collect::<Vec<_>>();
        let number =
            |pick: fn(&ImageRow<'_>) -> Option<i64>| rows.iter().map(pick).collect::<Vec<_>>();
        sqlx::query(sql::INSERT_IMAGES_UNNEST)
            .bind(article_id)
            .bind((0..rows.len() as i64).collect::<Vec<_>>())
            .bind(
                rows.iter()
                    .map(|row| row.image.url.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(column(|row| row.image.alt.clone()))
            .bind(column(|row| row.image.caption.clone()))
            .bind(number(|row| row.image.width))
            .bind(number(|row| row.image.height))
            .bind(column(|row| row.mime.clone()))
            .bind(number(|row| row.size))
            .bind(column(|row| row.sha256.clone()))
            .execute(&mut *self)
            .await
            .context("storing images")?;
        Ok(())
    }
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
        ImageRows::insert(&mut *$tx, $article_id, $rows).await?;
    };
}

/// The most articles one transaction writes.
const MAX_BATCH: usize = 32;

/// Article writes waiting for a writer, and the right to be the writer.
///
/// Every task that stores an article queues it and then either waits for its outcome or, when
/// no other task is writing, becomes the writer: it takes everything queued (at most
/// [`MAX_BATCH`]) and writes it in one transaction under one hold of the cursor lock. A lone
/// article is written at once; under load, the articles that arrive during one commit share the
/// next. Nothing waits for a timer and nothing is held in memory beyond the articles whose
/// tasks are waiting, so a shutdown has nothing to flush.
#[derive(Debug, Default)]
pub(crate) struct ArticleWrites {
    queued: std::sync::Mutex<Vec<QueuedWrite>>,
    writer: tokio::sync::Mutex<()>,
}

#[derive(Debug)]
struct QueuedWrite {
    /// Shared with the caller's task, which queues it again should a writer drop it.
    article: std::sync::Arc<NewArticle>,
    /// The article's summary as stored, made before the write: sanitizing takes CPU that a
    /// transaction holding the cursor lock should not wait for.
    summary: std::sync::Arc<StoredSummary>,
    /// The text's near-duplicate fingerprint, made before the write for the same reason.
    fingerprint: Option<Fingerprint>,
    settled: Option<(i64, EntryAttempt)>,
    done: tokio::sync::oneshot::Sender<Result<InsertOutcome, StoreError>>,
}

impl QueuedWrite {
    /// The feed's listing of the article: what its entry said of it.
    fn listing(&self) -> Listing<'_> {
        let article = &self.article;
        Listing {
            feed_id: article.feed_id,
            guid: article.guid.as_deref(),
            title: &article.title,
            author: article.author.as_deref(),
            published_at: article.published_at,
            summary: &self.summary,
            tags: &article.tags,
        }
    }
}

impl ArticleWrites {
    fn queue(&self, write: QueuedWrite) {
        self.queued
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(write);
    }

    /// The oldest queued writes, at most [`MAX_BATCH`].
    fn take(&self) -> Vec<QueuedWrite> {
        let mut queued = self
            .queued
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let n = queued.len().min(MAX_BATCH);
        queued.drain(..n).collect()
    }
}

/// What a stored article takes from its page: the extraction and what the page says of
/// itself. Built in one place (`pipeline::extraction`), for a page downloaded now and for a
/// raw page extracted again ([`Store::replace_extraction`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PageFields {
    pub extractor: String,
    pub confidence: f64,
    pub verdict: Verdict,
    pub quality: f64,
    pub language: Option<String>,
    pub text: String,
    pub html: String,
    /// The feed's author, else the page's; where it was read is in `metadata`.
    pub author: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub metadata: ArticleMetadata,
    /// Without bytes when re-extracted: images whose URL was downloaded before keep them.
    pub images: Vec<NewImage>,
    /// What kind of page it is: detected, or its feed's or site's `page_type`.
    pub page_type: PageType,
    /// A forum thread's posts in page order; empty on every other page type.
    pub posts: Vec<Post>,
}

/// Binds what a page says of itself ([`ArticleMetadata`]), in the columns' order
/// (`author_source` … `site_name_source`), to a query: the insert and the re-extraction both
/// write them.
macro_rules! bind_metadata {
    ($query:expr, $metadata:expr) => {{
        let metadata: &ArticleMetadata = $metadata;
        $query
            .bind(&metadata.author_source)
            .bind(&metadata.published_source)
            .bind(&metadata.lead_image_url)
            .bind(&metadata.lead_image_source)
            .bind(&metadata.site_name)
            .bind(&metadata.site_name_source)
    }};
}

/// Writes one queued article on a connection inside the caller's transaction, which holds
/// the article cursor lock: the cluster it joins, the row, its images, its band keys, its
/// listing (with its tags) and its webhook deliveries. `statement` is the backend's [`sql::INSERT_ARTICLE`].
trait ArticleRows {
    async fn insert_queued(
        &mut self,
        statement: &'static str,
        write: &QueuedWrite,
        stored_at: DateTime<Utc>,
    ) -> Result<InsertOutcome, StoreError>;

    /// The article's row: its id, or `None` when it is already stored (same normalized URL,
    /// or same GUID in the same feed).
    async fn insert_row(
        &mut self,
        statement: &'static str,
        write: &QueuedWrite,
        duplicate_of: Option<i64>,
    ) -> Result<Option<i64>, StoreError>;
}

/// Queues the webhook deliveries of article `$id`, listed by feed `$feed`, whose cluster's
/// representative is `$representative` (`None`: it is its own), on connection `$tx`.
macro_rules! enqueue_deliveries {
    ($tx:ident, $id:expr, $feed:expr, $representative:expr, $at:expr) => {
        sqlx::query(sql::ENQUEUE_DELIVERIES)
            .bind($id)
            .bind($at)
            .bind($feed)
            .bind(super::DeliveryState::Pending.as_str())
            .bind($representative)
            .execute(&mut *$tx)
            .await
            .context("queueing webhook deliveries")?;
    };
}

/// The same statements on both backends; only the connection type differs.
macro_rules! article_rows_on {
    ($connection:ty) => {
        impl ArticleRows for $connection {
            async fn insert_queued(
                &mut self,
                statement: &'static str,
                write: &QueuedWrite,
                stored_at: DateTime<Utc>,
            ) -> Result<InsertOutcome, StoreError> {
                let tx = self;
                let article = &write.article;
                let duplicate_of = match &write.fingerprint {
                    Some(fingerprint) => tx.cluster_of(fingerprint, article.fetched_at).await?,
                    None => None,
                };
                let listing = write.listing();
                let Some(id) = tx.insert_row(statement, write, duplicate_of).await? else {
                    let existing: i64 = sqlx::query_scalar(sql::SELECT_KNOWN_ARTICLE)
                        .bind(&article.url)
                        .bind(article.feed_id)
                        .bind(&article.guid)
                        .fetch_one(&mut *tx)
                        .await
                        .context("finding the article an insert duplicated")?;
                    // Listed only, its owner kept: the article may be one of this batch, not
                    // yet in SQLite's search index, which a change of title would update. Two
                    // feeds storing one URL at once is a race; the usual path for a stored
                    // article, `Store::list_known_article`, weighs the feed's claim.
                    if tx.record_listing(existing, &listing, stored_at).await? {
                        let representative: Option<i64> =
                            sqlx::query_scalar(sql::SELECT_DUPLICATE_OF)
                                .bind(existing)
                                .fetch_one(&mut *tx)
                                .await
                                .context("reading an article's cluster")?;
                        enqueue_deliveries!(
                            tx,
                            existing,
                            article.feed_id,
                            representative,
                            stored_at
                        );
                    }
                    return Ok(InsertOutcome::Duplicate(existing));
                };
                let (rows, blobs) = image_rows(&article.images, &[]);
                insert_images!(tx, id, &rows, &blobs, stored_at);
                tx.write_band_keys(id, write.fingerprint.as_ref()).await?;
                tx.record_listing(id, &listing, stored_at).await?;
                // A better representative than the cluster's may have arrived: this one.
                let representative = match duplicate_of {
                    Some(first) => Some(tx.elect_representative(first).await?)
                        .filter(|&representative| representative != id),
                    None => None,
                };
                enqueue_deliveries!(tx, id, article.feed_id, representative, stored_at);
                Ok(InsertOutcome::Inserted(id))
            }

            async fn insert_row(
                &mut self,
                statement: &'static str,
                write: &QueuedWrite,
                duplicate_of: Option<i64>,
            ) -> Result<Option<i64>, StoreError> {
                let article = &write.article;
                let raw_encoding = article
                    .raw_page
                    .as_ref()
                    .map_or(PageEncoding::Zstd, CompressedPage::encoding);
                let inserted = sqlx::query_scalar::<_, i64>(statement)
                    .bind(article.feed_id)
                    .bind(&article.guid)
                    .bind(&article.url)
                    .bind(&article.canonical_url)
                    .bind(&article.title)
                    .bind(&article.author)
                    .bind(&write.summary.html)
                    .bind(article.published_at.map(db_time))
                    .bind(db_time(article.fetched_at))
                    .bind(&article.language)
                    .bind(&article.extractor)
                    .bind(article.confidence)
                    .bind(&article.text)
                    .bind(&article.html)
                    .bind(word_count(&article.text))
                    .bind(sha256_hex(article.text.as_bytes()))
                    .bind(article.raw_page.as_ref().map(CompressedPage::as_bytes))
                    .bind(&article.raw_content_type)
                    .bind(raw_encoding.as_str());
                let inserted = bind_metadata!(inserted, &article.metadata)
                    .bind(&write.summary.text)
                    .bind(article.verdict.as_str())
                    .bind(article.quality)
                    .bind(write.fingerprint.as_ref().map(Fingerprint::to_bytes))
                    .bind(duplicate_of)
                    .bind(article.page_type.as_str())
                    .bind(sqlx::types::Json(&article.posts))
                    .bind(sqlx::types::Json(&article.enclosures))
                    .bind(article.kind.as_str())
                    .fetch_optional(&mut *self)
                    .await
                    .context("inserting an article")?;
                Ok(inserted)
            }
        }
    };
}

article_rows_on!(sqlx::SqliteConnection);
article_rows_on!(sqlx::PgConnection);

impl Store {
    /// Stores an article with its images in one transaction. An article already stored (same
    /// normalized URL, or same GUID in the same feed) is left as it is and reported as a
    /// duplicate. Image bytes are stored once per SHA-256. The summary is stored sanitized,
    /// with its plain text ([`StoredSummary`]).
    pub async fn insert_article(&self, article: &NewArticle) -> Result<InsertOutcome, StoreError> {
        self.insert_entry_article(article.clone(), None).await
    }

    /// Stores an article like [`Store::insert_article`] and, in the same transaction, writes
    /// `settled` (an entry id and the attempt that stored it) to `feed_entries`: the entry is
    /// `stored` exactly when its article is (or was already: a duplicate), with no commit of
    /// its own.
    ///
    /// Concurrent calls share transactions (see [`ArticleWrites`]): one commit and one hold of
    /// the cursor lock for every article queued meanwhile. When a shared transaction fails,
    /// its articles are written again one by one, so that one bad article fails alone. A call
    /// dropped while it waits may still see its article written; one dropped while it writes
    /// rolls the batch back, and the other callers queue theirs again.
    /// The article is taken, not copied: while it waits for a writer it is held once.
    pub async fn insert_entry_article(
        &self,
        article: NewArticle,
        settled: Option<(i64, &EntryAttempt)>,
    ) -> Result<InsertOutcome, StoreError> {
        let summary = StoredSummary::of(article.summary.as_deref());
        self.insert_summarized_article(article, summary, settled)
            .await
    }

    /// [`Store::insert_entry_article`] with the summary as stored made by the caller: off the
    /// async runtime and within its time budget, as sanitizing is CPU work.
    pub(crate) async fn insert_summarized_article(
        &self,
        article: NewArticle,
        summary: StoredSummary,
        settled: Option<(i64, &EntryAttempt)>,
    ) -> Result<InsertOutcome, StoreError> {
        let summary = std::sync::Arc::new(summary);
        let fingerprint = Fingerprint::of(&article.text);
        let article = std::sync::Arc::new(article);
        loop {
            let (done, mut outcome) = tokio::sync::oneshot::channel();
            self.writes.queue(QueuedWrite {
                article: article.clone(),
                summary: summary.clone(),
                fingerprint: fingerprint.clone(),
                settled: settled.map(|(id, attempt)| (id, attempt.clone())),
                done,
            });
            let written = loop {
                tokio::select! {
                    biased;
                    written = &mut outcome => break written,
                    writer = self.writes.writer.lock() => {
                        let batch = self.writes.take();
                        if batch.is_empty() {
                            // Ours was taken by the writer before: its outcome has been sent.
                            drop(writer);
                            break (&mut outcome).await;
                        }
                        self.write_queued(batch).await;
                    }
                }
            };
            match written {
                Ok(result) => return result,
                // The writer that took it was dropped mid-write: it rolled back. Again.
                Err(_) => continue,
            }
        }
    }

    /// Writes a batch, then tells each caller its outcome.
    async fn write_queued(&self, batch: Vec<QueuedWrite>) {
        match self.write_batch_noted(&batch).await {
            Ok(outcomes) => {
                for (write, outcome) in batch.into_iter().zip(outcomes) {
                    let _ = write.done.send(Ok(outcome));
                }
            }
            Err(error) if batch.len() == 1 => {
                if let Some(write) = batch.into_iter().next() {
                    let _ = write.done.send(Err(error));
                }
            }
            Err(error) => {
                tracing::warn!(articles = batch.len(), %error, "a batch of articles failed; writing them one by one");
                for write in batch {
                    let result = self
                        .write_batch_noted(std::slice::from_ref(&write))
                        .await
                        .map(|outcomes| outcomes[0]);
                    let _ = write.done.send(result);
                }
            }
        }
    }

    /// Writes articles with their images, and settles their entries, in one transaction. On
    /// PostgreSQL the cursor lock (`sql::LOCK_ARTICLE_CURSOR`) is taken after the entry
    /// updates, so that it is held only from the first article's id to the commit.
    async fn write_batch(&self, batch: &[QueuedWrite]) -> Result<Vec<InsertOutcome>, StoreError> {
        let stored_at = now();
        on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            for (entry_id, attempt) in batch.iter().filter_map(|write| write.settled.as_ref()) {
                update_entry_attempt!(entry_id, attempt)
                                        .execute(&mut *tx)
                    .await
                    .context("recording an entry attempt")?;
            }
            sqlx::query(self.sql(&sql::LOCK_ARTICLE_CURSOR))
                .execute(&mut *tx)
                .await
                .context("locking the article cursor")?;
            let mut outcomes = Vec::with_capacity(batch.len());
            for write in batch {
                let statement = self.sql(&sql::INSERT_ARTICLE);
                outcomes.push(tx.insert_queued(statement, write, stored_at).await?);
            }
            if self.backend() == Backend::Sqlite {
                let ids = outcomes.iter().filter_map(|outcome| match outcome {
                    InsertOutcome::Inserted(id) => Some(*id),
                    InsertOutcome::Duplicate(_) => None,
                });
                if let (Some(first), Some(last)) = (ids.clone().min(), ids.max()) {
                    sqlx::query(sql::INDEX_STORED_ARTICLES)
                        .bind(first)
                        .bind(last)
                        .execute(&mut *tx)
                        .await
                        .context("indexing stored articles for search")?;
                }
            }
            tx.commit().await.context("committing articles")?;
            Ok(outcomes)
        })
    }

    /// [`Store::write_batch`], its outcome noted (`health.rs`).
    async fn write_batch_noted(
        &self,
        batch: &[QueuedWrite],
    ) -> Result<Vec<InsertOutcome>, StoreError> {
        self.noted(WriteKind::Articles, self.write_batch(batch).await)
    }

    /// Replaces the extracted text, HTML and images of a stored article in one transaction
    /// (`gleaner reextract`). Returns false when there is no such article.
    pub async fn replace_extraction(
        &self,
        id: i64,
        extraction: &PageFields,
    ) -> Result<bool, StoreError> {
        let previous = self.article_images(id).await?;
        let (rows, blobs) = image_rows(&extraction.images, &previous);
        // The cluster the article joined when stored stays; its new text is what later
        // articles are compared with.
        let fingerprint = Fingerprint::of(&extraction.text);
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
                .bind(extraction.verdict.as_str())
                .bind(extraction.quality)
                .bind(&extraction.language)
                .bind(&extraction.author)
                .bind(extraction.published_at.map(db_time));
            let updated = bind_metadata!(updated, &extraction.metadata)
                .bind(fingerprint.as_ref().map(Fingerprint::to_bytes))
                .bind(extraction.page_type.as_str())
                .bind(sqlx::types::Json(&extraction.posts))
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
            tx.write_band_keys(id, fingerprint.as_ref()).await?;
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
        let statement = self.sql(&sql::SELECT_ARTICLE);
        let mut article: Option<Article> = on_pool!(self, pool => {
            sqlx::query_as(statement).bind(id).fetch_optional(pool).await
        })
        .context("reading an article")?;
        if let Some(article) = article.as_mut() {
            sort_tags(&mut article.tags);
        }
        Ok(article)
    }

    /// The raw page of an article as downloaded, with its `Content-Type`, for re-extraction.
    pub async fn raw_page(
        &self,
        id: i64,
    ) -> Result<Option<(CompressedPage, Option<String>)>, StoreError> {
        let row: Option<(Option<Vec<u8>>, Option<String>, String)> = on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_RAW_PAGE).bind(id).fetch_optional(pool).await
        })
        .context("reading a raw page")?;
        let Some((Some(bytes), content_type, encoding)) = row else {
            return Ok(None);
        };
        let encoding = PageEncoding::parse(&encoding).ok_or_else(|| StoreError::Io {
            context: "reading a raw page",
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("article {id}: unknown raw_encoding {encoding:?}"),
            ),
        })?;
        Ok(Some((
            CompressedPage::from_stored(encoding, bytes),
            content_type,
        )))
    }

    pub async fn list_articles(
        &self,
        filter: &ArticleFilter,
    ) -> Result<Vec<ArticleSummary>, StoreError> {
        let feed_id = match &filter.feed {
            Some(name) => match self.feed_id(name).await? {
                Some(id) => Some(id),
                // No such feed: no articles.
                None => return Ok(Vec::new()),
            },
            None => None,
        };
        // Four statements, so that each is planned on its index: the feed filter and the
        // order decide which (an `OR $1 IS NULL` would hide the index from SQLite's planner).
        let statement = self.sql(match (feed_id.is_some(), filter.ascending) {
            (false, true) if filter.page_type.is_some() => &sql::LIST_TYPE_ARTICLES_ASCENDING,
            (false, false) if filter.page_type.is_some() => &sql::LIST_TYPE_ARTICLES_NEWEST_FIRST,
            (false, true) => &sql::LIST_ARTICLES_ASCENDING,
            (false, false) => &sql::LIST_ARTICLES_NEWEST_FIRST,
            (true, true) => &sql::LIST_FEED_ARTICLES_ASCENDING,
            (true, false) => &sql::LIST_FEED_ARTICLES_NEWEST_FIRST,
        });
        let mut rows: Vec<ArticleSummary> = on_pool!(self, pool => {
            sqlx::query_as(statement)
                .bind(feed_id)
                .bind(filter.since.map(db_time))
                .bind(filter.after_id)
                .bind(filter.limit.max(0))
                .bind(filter.min_quality)
                .bind(filter.before_id)
                .bind(filter.page_type.map(PageType::as_str))
                .bind(filter.tag.as_deref())
                .fetch_all(pool)
                .await
        })
        .context("listing articles")?;
        for row in &mut rows {
            sort_tags(&mut row.tags);
        }
        Ok(rows)
    }

    /// The id of the feed named `name`.
    pub(super) async fn feed_id(&self, name: &str) -> Result<Option<i64>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_scalar(sql::SELECT_FEED_ID).bind(name).fetch_optional(pool).await
        })
        .context("looking up a feed by name")
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

/// Tags in one order on both databases (their aggregates give none): without regard to case,
/// then by spelling.
pub(super) fn sort_tags(tags: &mut [String]) {
    tags.sort_by_cached_key(|tag| (tag.to_lowercase(), tag.clone()));
}

/// Words of a text: whitespace-separated pieces with at least one letter or digit (a lone
/// dash is not a word).
pub fn word_count(text: &str) -> i64 {
    text.split_whitespace()
        .filter(|piece| piece.chars().any(char::is_alphanumeric))
        .count() as i64
}
