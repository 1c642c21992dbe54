//! Reads the HTTP API needs beyond the article reads: counts for the metrics scrape and the
//! web view's totals.

use serde::Serialize;

use super::{QueryContext, Store, StoreError, on_pool};

/// Row counts, read at scrape time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct StoreCounts {
    pub articles: i64,
    pub feeds_active: i64,
    pub feeds_inactive: i64,
    /// Active feeds whose last poll failed.
    pub feeds_failing: i64,
}

const COUNTS: &str = "
    SELECT (SELECT COUNT(*) FROM articles) AS articles,
           (SELECT COUNT(*) FROM feeds WHERE active) AS feeds_active,
           (SELECT COUNT(*) FROM feeds WHERE NOT active) AS feeds_inactive,
           (SELECT COUNT(*) FROM feeds WHERE active AND error_count > 0) AS feeds_failing";

/// What happened since a moment: the web view's totals of the last day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct TotalsSince {
    /// Articles fetched since.
    pub articles: i64,
    /// Failures recorded since.
    pub failures: i64,
}

/// Two range counts, each on its time index (`articles_fetched_idx`, `failures_occurred_idx`).
const TOTALS_SINCE: &str = "
    SELECT (SELECT COUNT(*) FROM articles WHERE fetched_at >= $1) AS articles,
           (SELECT COUNT(*) FROM failures WHERE occurred_at >= $1) AS failures";

impl Store {
    /// How many articles were stored, and failures recorded, since `since`.
    pub async fn totals_since(
        &self,
        since: chrono::DateTime<chrono::Utc>,
    ) -> Result<TotalsSince, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(TOTALS_SINCE).bind(super::db_time(since)).fetch_one(pool).await
        })
        .context("counting the last day")
    }

    /// How many articles and feeds are stored.
    pub async fn counts(&self) -> Result<StoreCounts, StoreError> {
        on_pool!(self, pool => sqlx::query_as(COUNTS).fetch_one(pool).await)
            .context("counting articles and feeds")
    }
}
