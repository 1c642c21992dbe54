//! Reads the HTTP API needs beyond the article reads: counts for the metrics scrape.

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

impl Store {
    /// How many articles and feeds are stored.
    pub async fn counts(&self) -> Result<StoreCounts, StoreError> {
        on_pool!(self, pool => sqlx::query_as(COUNTS).fetch_one(pool).await)
            .context("counting articles and feeds")
    }
}
