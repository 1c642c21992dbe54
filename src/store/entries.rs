//! The entries of feed documents, remembered until their article is stored or given up.
//!
//! Owns the `feed_entries` table: a poll writes every entry of a fetched document here
//! ([`Store::remember_entries`]) before it saves the feed's new validators, then works
//! through the due ones ([`Store::due_entries`]) and writes each attempt's outcome back
//! ([`Store::record_entry_attempt`]), or records that the feed's filters turned it away
//! ([`Store::block_entry`]). An entry whose attempt never finished (a cancelled poll, a
//! dropped connection) simply stays due.

use chrono::{DateTime, Utc};

use super::model::*;
use super::{
    QueryContext, Store, StoreError, WriteKind, db_time, on_pool, sql, update_entry_attempt,
};

/// The states of an entry that still waits for its article ([`EntryState::is_waiting`]).
const WAITING: [EntryState; 2] = [EntryState::Pending, EntryState::Retrying];

impl Store {
    /// Remembers a feed's entries (pending, due at once) in one transaction; entries the feed
    /// already has keep their state, unless their GUID became distinct (see
    /// `sql::INSERT_FEED_ENTRY`): they are then due again. Returns how many were new or due
    /// again.
    pub async fn remember_entries(
        &self,
        feed_id: i64,
        entries: &[NewEntry],
        at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let at = db_time(at);
        // In a block of its own: the `?`s end the block, not the function, and are noted.
        let remembered = async { on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            let mut added = 0;
            for entry in entries {
                added += sqlx::query(sql::INSERT_FEED_ENTRY)
                    .bind(feed_id)
                    .bind(&entry.guid)
                    .bind(&entry.url)
                    .bind(&entry.title)
                    .bind(&entry.author)
                    .bind(&entry.summary)
                    .bind(entry.published_at.map(db_time))
                    .bind(EntryState::Pending.as_str())
                    .bind(at)
                    .bind(EntryState::Retrying.as_str())
                    .bind(EntryState::Stored.as_str())
                    .bind(&entry.content)
                    .bind(sqlx::types::Json(&entry.enclosures))
                    .bind(sqlx::types::Json(&entry.tags))
                    .execute(&mut *tx)
                    .await
                    .context("remembering a feed entry")?
                    .rows_affected();
            }
            let urls = serde_json::Value::from_iter(entries.iter().map(|entry| entry.url.as_str()));
            sqlx::query(self.sql(&sql::MARK_ENTRIES_SEEN))
                .bind(feed_id)
                .bind(at)
                .bind(urls.to_string())
                .execute(&mut *tx)
                .await
                .context("marking feed entries as listed")?;
            tx.commit().await.context("committing feed entries")?;
            Ok::<u64, StoreError>(added)
        }) }
        .await;
        self.noted(WriteKind::Entries, remembered)
    }

    /// Forgets the settled entries (stored, given up, blocked) that their feed stopped listing
    /// and that were last listed before `before`; the number forgotten. An entry its feed
    /// still lists is kept, so that its page is never downloaded again.
    pub async fn forget_entries(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        on_pool!(self, pool => {
            sqlx::query(sql::FORGET_ENTRIES)
                .bind(db_time(before))
                .bind(EntryState::Stored.as_str())
                .bind(EntryState::GivenUp.as_str())
                .bind(EntryState::Blocked.as_str())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })
        .context("forgetting feed entries no longer listed")
    }

    /// Up to `limit` entries of a feed, pending or retrying, whose attempt time has come by
    /// `at`, oldest first.
    pub async fn due_entries(
        &self,
        feed_id: i64,
        at: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<PendingEntry>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_DUE_ENTRIES)
                .bind(feed_id)
                .bind(WAITING[0].as_str())
                .bind(WAITING[1].as_str())
                .bind(db_time(at))
                .bind(limit.max(0))
                .fetch_all(pool)
                .await
        })
        .context("reading due feed entries")
    }

    /// When the next entry of a feed that waits for its article is due, if any waits.
    pub async fn next_entry_attempt(
        &self,
        feed_id: i64,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_scalar(sql::SELECT_NEXT_ENTRY_ATTEMPT)
                .bind(feed_id)
                .bind(WAITING[0].as_str())
                .bind(WAITING[1].as_str())
                .fetch_one(pool)
                .await
        })
        .context("reading the next entry attempt")
    }

    /// Writes the outcome of one attempt at an entry.
    pub async fn record_entry_attempt(
        &self,
        entry_id: i64,
        attempt: &EntryAttempt,
    ) -> Result<(), StoreError> {
        let recorded = on_pool!(self, pool => {
            update_entry_attempt!(entry_id, attempt)
                                .execute(pool)
                .await
                .map(drop)
        })
        .context("recording an entry attempt");
        self.noted(WriteKind::Entries, recorded)
    }

    /// Records that a filter turned an entry away, and why: it is never due again.
    pub async fn block_entry(
        &self,
        entry_id: i64,
        reason: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let blocked = on_pool!(self, pool => {
            sqlx::query(sql::BLOCK_FEED_ENTRY)
                .bind(entry_id)
                .bind(EntryState::Blocked.as_str())
                .bind(reason)
                .bind(db_time(at))
                .execute(pool)
                .await
                .map(drop)
        })
        .context("recording a blocked entry");
        self.noted(WriteKind::Entries, blocked)
    }
}
