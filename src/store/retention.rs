//! Removing what is no longer wanted: articles (or only their raw pages) fetched before a
//! cutoff (`gleaner prune`, `[retention]`), and a removed feed with everything stored for it
//! (`gleaner feeds remove --purge`). Image bytes nothing refers to any more go too.
//!
//! A purge deletes what the feed alone holds: an article that another feed lists too stays,
//! that feed's from then on (`ownership`). After either, a near-duplicate cluster whose
//! representative was deleted gets a new one from its members (`duplicates`).
//!
//! A pruned article's feed entry is kept (a small row), so the article is not downloaded again
//! while its feed still lists it. Settled entries that their feed stopped listing are
//! forgotten a month after they were last listed (`Store::forget_entries`, run by the
//! service every hour), so `feed_entries` follows the feeds, not their whole history.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::duplicates::NearDuplicates as _;
use super::ownership::Listings as _;
use super::{QueryContext, Store, StoreError, db_time, now, on_pool, sql};

/// What a prune or a purge removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Pruned {
    /// Articles deleted (with their images and claims).
    pub articles: u64,
    /// Raw pages dropped from articles that stay.
    pub raw_pages: u64,
    /// Stored image files no longer referred to.
    pub image_blobs: u64,
    /// Articles a purged feed shared with other feeds: kept, now another feed's (a purge
    /// only).
    pub adopted: u64,
    /// Near-duplicate clusters whose representative was deleted, given a new one.
    pub clusters: u64,
    /// Remembered feed entries deleted (a purge only).
    pub entries: u64,
    /// Failure records deleted (a purge only).
    pub failures: u64,
}

/// What a prune would remove (`prune --dry-run`): its counts, and the ids of the articles
/// it would delete (or, with `raw_only`, whose raw pages it would drop), ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PrunePreview {
    #[serde(flatten)]
    pub pruned: Pruned,
    pub ids: Vec<i64>,
}

/// Whether a prune's transaction is kept or rolled back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Commit,
    /// Rolled back once counted: the counts are exactly what a prune would remove now.
    RollBack,
}

impl Store {
    /// Deletes the articles fetched before `cutoff`, or with `raw_only` only their raw pages,
    /// in one transaction.
    pub async fn prune(&self, cutoff: DateTime<Utc>, raw_only: bool) -> Result<Pruned, StoreError> {
        let preview = self.prune_as(cutoff, raw_only, Outcome::Commit).await?;
        Ok(preview.pruned)
    }

    /// What [`Store::prune`] would remove, removing nothing: the same transaction, rolled back.
    pub async fn prune_preview(
        &self,
        cutoff: DateTime<Utc>,
        raw_only: bool,
    ) -> Result<PrunePreview, StoreError> {
        self.prune_as(cutoff, raw_only, Outcome::RollBack).await
    }

    async fn prune_as(
        &self,
        cutoff: DateTime<Utc>,
        raw_only: bool,
        outcome: Outcome,
    ) -> Result<PrunePreview, StoreError> {
        let cutoff = db_time(cutoff);
        on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            let mut pruned = Pruned::default();
            let mut ids = Vec::new();
            if outcome == Outcome::RollBack {
                let select = if raw_only { sql::SELECT_RAW_PAGES_BEFORE } else { sql::SELECT_ARTICLES_BEFORE };
                ids = sqlx::query_scalar::<_, i64>(select)
                    .bind(cutoff)
                    .fetch_all(&mut *tx)
                    .await
                    .context("listing what a prune would remove")?;
            }
            if raw_only {
                pruned.raw_pages = sqlx::query(sql::DROP_RAW_PAGES_BEFORE)
                    .bind(cutoff)
                    .execute(&mut *tx)
                    .await
                    .context("dropping old raw pages")?
                    .rows_affected();
            } else {
                pruned.articles = sqlx::query(sql::DELETE_ARTICLES_BEFORE)
                    .bind(cutoff)
                    .execute(&mut *tx)
                    .await
                    .context("deleting old articles")?
                    .rows_affected();
                pruned.clusters = tx.repair_orphaned_clusters(now()).await?;
                pruned.image_blobs = sqlx::query(sql::DELETE_ORPHAN_IMAGE_BLOBS)
                    .execute(&mut *tx)
                    .await
                    .context("deleting unused image bytes")?
                    .rows_affected();
            }
            match outcome {
                Outcome::Commit => tx.commit().await.context("committing a prune")?,
                Outcome::RollBack => tx.rollback().await.context("rolling back a dry-run prune")?,
            }
            Ok(PrunePreview { pruned, ids })
        })
    }

    /// Deletes the feed named `name` with its articles, remembered entries and failures, in
    /// one transaction; an article another feed lists too is kept, and passes to that feed.
    /// `None` when no feed has that name.
    pub async fn purge_feed(&self, name: &str) -> Result<Option<Pruned>, StoreError> {
        let Some(feed) = self.feed_by_name(name).await? else {
            return Ok(None);
        };
        on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            sqlx::query(sql::DELETE_FEED_LISTINGS)
                .bind(feed.id)
                .execute(&mut *tx)
                .await
                .context("deleting a feed's listings")?;
            let adopted = tx.adopt_feed_articles(feed.id).await?;
            let articles = sqlx::query(sql::DELETE_FEED_ARTICLES)
                .bind(feed.id)
                .execute(&mut *tx)
                .await
                .context("deleting a feed's articles")?
                .rows_affected();
            let entries = sqlx::query(sql::DELETE_FEED_ENTRIES)
                .bind(feed.id)
                .execute(&mut *tx)
                .await
                .context("deleting a feed's entries")?
                .rows_affected();
            let failures = sqlx::query(sql::DELETE_FEED_FAILURES)
                .bind(feed.id)
                .execute(&mut *tx)
                .await
                .context("deleting a feed's failures")?
                .rows_affected();
            sqlx::query(sql::DELETE_FEED)
                .bind(feed.id)
                .execute(&mut *tx)
                .await
                .context("deleting a feed")?;
            let clusters = tx.repair_orphaned_clusters(now()).await?;
            let image_blobs = sqlx::query(sql::DELETE_ORPHAN_IMAGE_BLOBS)
                .execute(&mut *tx)
                .await
                .context("deleting unused image bytes")?
                .rows_affected();
            let pruned = Pruned {
                articles,
                adopted,
                clusters,
                entries,
                failures,
                image_blobs,
                raw_pages: 0,
            };
            tx.commit().await.context("committing a purge")?;
            Ok(Some(pruned))
        })
    }
}
