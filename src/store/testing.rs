//! Reads and writes that only the tests need, kept out of the store's public API: the
//! module is `#[doc(hidden)]`, and a test brings the methods in with
//! `use gleaner::store::testing::StoreTesting as _;`. The daemon, the CLI and the API never
//! call them; what they need goes through [`Store`]'s own methods.

use std::future::Future;
use std::io::Write as _;
use std::time::Duration;

use chrono::{DateTime, Utc};
use flate2::Compression;
use flate2::write::GzEncoder;

use super::model::{CompressedPage, EntryState, Failure, PageEncoding};
use super::{QueryContext, Store, StoreError, WriteKind, db_time, on_pool, sql};

/// The store's methods for tests.
pub trait StoreTesting {
    /// The most recent failures, newest first.
    fn recent_failures(
        &self,
        limit: i64,
    ) -> impl Future<Output = Result<Vec<Failure>, StoreError>> + Send;

    /// How many entries of a feed are in a state.
    fn count_entries(
        &self,
        feed_id: i64,
        state: EntryState,
    ) -> impl Future<Output = Result<i64, StoreError>> + Send;

    /// Why a feed's entry with this URL was blocked; `None` when it was not (or is unknown).
    fn entry_blocked_by(
        &self,
        feed_id: i64,
        url: &str,
    ) -> impl Future<Output = Result<Option<String>, StoreError>> + Send;

    /// Sets when a feed is next due, as a poll would.
    fn set_feed_next_due(
        &self,
        feed_id: i64,
        next_due_at: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The same store with another time budget per search.
    fn with_search_budget(self, budget: Duration) -> Store;
}

impl StoreTesting for Store {
    async fn recent_failures(&self, limit: i64) -> Result<Vec<Failure>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_RECENT_FAILURES).bind(limit.max(0)).fetch_all(pool).await
        })
        .context("listing failures")
    }

    async fn count_entries(&self, feed_id: i64, state: EntryState) -> Result<i64, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_scalar(sql::COUNT_FEED_ENTRIES)
                .bind(feed_id)
                .bind(state.as_str())
                .fetch_one(pool)
                .await
        })
        .context("counting feed entries")
    }

    async fn entry_blocked_by(
        &self,
        feed_id: i64,
        url: &str,
    ) -> Result<Option<String>, StoreError> {
        let reason: Option<Option<String>> = on_pool!(self, pool => {
            sqlx::query_scalar(sql::SELECT_ENTRY_BLOCKED_BY)
                .bind(feed_id)
                .bind(url)
                .fetch_optional(pool)
                .await
        })
        .context("reading why an entry was blocked")?;
        Ok(reason.flatten())
    }

    async fn set_feed_next_due(
        &self,
        feed_id: i64,
        next_due_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let scheduled = on_pool!(self, pool => {
            sqlx::query(sql::SET_FEED_NEXT_DUE)
                .bind(feed_id)
                .bind(db_time(next_due_at))
                .execute(pool)
                .await
                .map(drop)
        })
        .context("scheduling a feed");
        self.noted(WriteKind::FeedState, scheduled)
    }

    fn with_search_budget(mut self, budget: Duration) -> Store {
        self.search_budget = budget;
        self
    }
}

/// Raw page bytes compressed with gzip, as pages were stored before zstd (tests of old rows).
pub fn compress_gzip(raw: &[u8]) -> std::io::Result<CompressedPage> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(raw.len() / 4), Compression::new(6));
    encoder.write_all(raw)?;
    Ok(CompressedPage::from_stored(
        PageEncoding::Gzip,
        encoder.finish()?,
    ))
}
