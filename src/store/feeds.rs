//! Feeds with their polling state and leases, which feeds are overdue, and the failure
//! record.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::model::*;
use super::{QueryContext, Store, StoreError, WriteKind, db_time, now, on_pool, sql};
use crate::config::FeedConfig;
use crate::schedule::CronSchedule;

/// A feed is overdue once this many firings of its schedule have passed since it was due
/// and nobody polled it: late enough that a slow poll or a full polling slot does not
/// count, early enough to be seen within a few periods.
pub const OVERDUE_FIRINGS: usize = 3;

/// An active feed that nobody has polled for [`OVERDUE_FIRINGS`] firings of its schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OverdueFeed {
    pub name: String,
    /// When it was due.
    pub due_since: DateTime<Utc>,
}

/// A lease this process took: the feed, and the lease's generation, which its release names.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TakenLease {
    #[sqlx(flatten)]
    pub feed: FeedRecord,
    pub lease_generation: i64,
}

/// A feed that another process holds: it polls the feed, or another feed of its host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeasedFeed {
    pub name: String,
    /// The holder's `feeds.lease_owner`: host, process id and a random part.
    pub holder: String,
    /// When the holder's lease lapses unless it is renewed.
    pub until: DateTime<Utc>,
}

/// When a feed due since `due` on `schedule` ([`FeedRecord::due_since`]: a feed without a
/// next due time is due from its last poll or its creation) was due, if it is overdue at
/// `at` ([`OVERDUE_FIRINGS`] firings have passed since); `None` when it is not. A schedule
/// that does not parse, or never fires again, makes no feed overdue.
pub fn overdue_since(
    schedule: &str,
    due: Option<DateTime<Utc>>,
    at: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let due = due.filter(|due| *due < at)?;
    let schedule = CronSchedule::parse(schedule).ok()?;
    let mut firing = due;
    for _ in 0..OVERDUE_FIRINGS {
        firing = schedule.next_after(firing)?;
        if firing >= at {
            return None;
        }
    }
    Some(due)
}

impl Store {
    /// Makes the feeds table match the configuration in one transaction: configured feeds
    /// are added or updated (by name) and active; the others, and those with `enabled =
    /// false`, become inactive, keeping their articles. Returns every feed row.
    pub async fn sync_feeds(&self, feeds: &[FeedConfig]) -> Result<Vec<FeedRecord>, StoreError> {
        let created_at = now();
        let synced = async { on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            sqlx::query(sql::DEACTIVATE_ALL_FEEDS)
                .execute(&mut *tx)
                .await
                .context("deactivating feeds")?;
            for feed in feeds.iter().filter(|feed| feed.enabled) {
                sqlx::query(sql::UPSERT_FEED)
                    .bind(&feed.name)
                    .bind(feed.url.as_str())
                    .bind(feed.schedule.expression())
                    .bind(created_at)
                    .bind(feed.url.host_str().map(str::to_ascii_lowercase))
                    .bind(feed.trusted)
                    .execute(&mut *tx)
                    .await
                    .context("adding a configured feed")?;
            }
            tx.commit().await.context("committing the feed list")?;
            Ok::<(), StoreError>(())
        }) }
        .await;
        self.noted(WriteKind::FeedList, synced)?;
        self.feeds().await
    }

    /// Every feed row, active or not, by name, with its article count.
    pub async fn feeds(&self) -> Result<Vec<FeedRecord>, StoreError> {
        on_pool!(self, pool => sqlx::query_as(sql::SELECT_FEEDS).fetch_all(pool).await)
            .context("listing feeds")
    }

    /// Leases up to `limit` active feeds to `owner` until `until`: those due at `at` (every
    /// active feed with `all`) that no replica holds, never polled first, then the most
    /// overdue, leaving out hosts of which another replica holds a feed (so that one host's
    /// feeds are polled from one replica at a time). Replicas leasing at the same moment get
    /// disjoint feeds.
    pub async fn lease_feeds(
        &self,
        owner: &str,
        at: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: i64,
        all: bool,
    ) -> Result<Vec<FeedRecord>, StoreError> {
        let taken = self.take_feed_leases(owner, at, until, limit, all).await?;
        Ok(taken.into_iter().map(|lease| lease.feed).collect())
    }

    /// [`Store::lease_feeds`], with each lease's generation: what its release must name.
    pub async fn take_feed_leases(
        &self,
        owner: &str,
        at: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: i64,
        all: bool,
    ) -> Result<Vec<TakenLease>, StoreError> {
        let (lock, lease) = (
            self.sql(&sql::LOCK_FEED_LEASES),
            self.sql(&sql::LEASE_FEEDS),
        );
        let leased = async { on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            sqlx::query(lock).execute(&mut *tx).await.context("waiting to lease feeds")?;
            let feeds = sqlx::query_as(lease)
                .bind(owner)
                .bind(db_time(at))
                .bind(db_time(until))
                .bind(limit.max(0))
                .bind(all)
                .fetch_all(&mut *tx)
                .await
                .context("leasing due feeds")?;
            tx.commit().await.context("committing feed leases")?;
            Ok::<Vec<TakenLease>, StoreError>(feeds)
        }) }
        .await;
        let mut feeds = self.noted(WriteKind::Leases, leased)?;
        // RETURNING keeps no order: restore the scheduler's.
        feeds.sort_by_key(|l| (l.feed.next_due_at.is_some(), l.feed.next_due_at, l.feed.id));
        Ok(feeds)
    }

    /// Extends until `until` the leases `owner` holds on `feed_ids` (the feeds it is
    /// polling); returns how many it still holds. Other feeds it holds are left to lapse.
    pub async fn renew_feed_leases(
        &self,
        owner: &str,
        feed_ids: &[i64],
        until: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        if feed_ids.is_empty() {
            return Ok(0);
        }
        let ids = serde_json::Value::from(feed_ids).to_string();
        let renewed = on_pool!(self, pool => {
            sqlx::query(self.sql(&sql::RENEW_FEED_LEASES))
                .bind(owner)
                .bind(db_time(until))
                .bind(&ids)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })
        .context("renewing feed leases");
        self.noted(WriteKind::Leases, renewed)
    }

    /// Gives one lease back, `(feed id, generation)`, when `owner` still holds that very
    /// lease (never a later one it took since); or every feed `owner` holds.
    pub async fn release_feed_leases(
        &self,
        owner: &str,
        lease: Option<(i64, i64)>,
    ) -> Result<(), StoreError> {
        let released = on_pool!(self, pool => {
            match lease {
                Some((id, generation)) => sqlx::query(sql::RELEASE_FEED_LEASE)
                    .bind(id)
                    .bind(owner)
                    .bind(generation),
                None => sqlx::query(sql::RELEASE_ALL_FEED_LEASES).bind(owner),
            }
            .execute(pool)
            .await
            .map(drop)
        })
        .context("releasing feed leases");
        self.noted(WriteKind::Leases, released)
    }

    /// The feeds a poll by `owner` at `at` would have taken (the due ones, every active one
    /// with `all`) but that another process holds: what `poll --once` reports as `leased`.
    pub async fn feeds_leased_elsewhere(
        &self,
        owner: &str,
        at: DateTime<Utc>,
        all: bool,
    ) -> Result<Vec<LeasedFeed>, StoreError> {
        let rows: Vec<(String, String, DateTime<Utc>)> = on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_LEASED_ELSEWHERE)
                .bind(owner)
                .bind(db_time(at))
                .bind(all)
                .fetch_all(pool)
                .await
        })
        .context("reading the feeds other processes hold")?;
        let mut leased: Vec<LeasedFeed> = Vec::new();
        for (name, holder, until) in rows {
            // Rows come by name, the longest-held lease first: that one says when it is free.
            if leased.last().is_some_and(|last| last.name == name) {
                continue;
            }
            leased.push(LeasedFeed {
                name,
                holder,
                until,
            });
        }
        Ok(leased)
    }

    /// The active feeds overdue at `at` (see [`overdue_since`]; a feed without a next due
    /// time too), the longest overdue first.
    pub async fn overdue_feeds(&self, at: DateTime<Utc>) -> Result<Vec<OverdueFeed>, StoreError> {
        type PastDue = (
            String,
            String,
            Option<DateTime<Utc>>,
            Option<DateTime<Utc>>,
            DateTime<Utc>,
        );
        let past_due: Vec<PastDue> = on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_PAST_DUE_FEEDS).bind(db_time(at)).fetch_all(pool).await
        })
        .context("reading past-due feeds")?;
        let mut overdue: Vec<OverdueFeed> = past_due
            .into_iter()
            .filter_map(
                |(name, schedule, next_due_at, last_polled_at, created_at)| {
                    let due = due_since(next_due_at, last_polled_at, created_at);
                    overdue_since(&schedule, Some(due), at)
                        .map(|due_since| OverdueFeed { name, due_since })
                },
            )
            .collect();
        overdue.sort_by(|a, b| (a.due_since, &a.name).cmp(&(b.due_since, &b.name)));
        Ok(overdue)
    }

    /// When the next active feed can be leased (it is due and no other replica holds it), if
    /// any is scheduled.
    pub async fn next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        on_pool!(self, pool => sqlx::query_scalar(sql::SELECT_NEXT_DUE).fetch_one(pool).await)
            .context("reading the next due time")
    }

    pub async fn feed_by_name(&self, name: &str) -> Result<Option<FeedRecord>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_FEED_BY_NAME).bind(name).fetch_optional(pool).await
        })
        .context("reading a feed")
    }

    /// Writes the outcome of a poll: status, conditional-GET validators, next due time; the
    /// consecutive error count grows on failure and resets on success.
    pub async fn record_feed_poll(&self, feed_id: i64, poll: &FeedPoll) -> Result<(), StoreError> {
        let recorded = on_pool!(self, pool => {
            sqlx::query(sql::RECORD_FEED_POLL)
                .bind(feed_id)
                .bind(db_time(poll.polled_at))
                .bind(poll.status.as_str())
                .bind(&poll.error)
                .bind(&poll.etag)
                .bind(&poll.last_modified)
                .bind(&poll.title)
                .bind(&poll.site_url)
                .bind(db_time(poll.next_due_at))
                .execute(pool)
                .await
                .map(drop)
        })
        .context("recording a feed poll");
        self.noted(WriteKind::FeedState, recorded)
    }

    /// Records a failure for operators (`gleaner feeds`, the failures table).
    pub async fn record_failure(&self, failure: &NewFailure) -> Result<(), StoreError> {
        self.insert_failure(sql::INSERT_FAILURE, failure)
            .await
            .map(drop)
    }

    /// Records a failure that stays true from poll to poll (an entry of the feed document
    /// that gives no article) only the first time: the same feed, stage, kind and message
    /// recorded already is not written again. Whether it was written.
    pub async fn record_failure_once(&self, failure: &NewFailure) -> Result<bool, StoreError> {
        self.insert_failure(sql::INSERT_FAILURE_ONCE, failure)
            .await
            .map(|rows| rows > 0)
    }

    /// Runs one of the failure inserts (their parameters are the same); the rows written.
    async fn insert_failure(
        &self,
        statement: &'static str,
        failure: &NewFailure,
    ) -> Result<u64, StoreError> {
        let inserted = on_pool!(self, pool => {
            sqlx::query(statement)
                .bind(now())
                .bind(failure.feed_id)
                .bind(&failure.article_url)
                .bind(failure.stage.as_str())
                .bind(failure.kind.as_str())
                .bind(&failure.message)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })
        .context("recording a failure");
        self.noted(WriteKind::Failures, inserted)
    }

    /// The newest failures that `filter` selects.
    pub async fn failures_matching(
        &self,
        filter: &FailureFilter,
    ) -> Result<Vec<Failure>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_MATCHING_FAILURES)
                .bind(&filter.feed)
                .bind(&filter.stage)
                .bind(filter.since.map(db_time))
                .bind(filter.limit.max(0))
                .fetch_all(pool)
                .await
        })
        .context("listing failures")
    }
}
