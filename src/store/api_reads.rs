//! Reads the HTTP API needs beyond the article reads: counts for the metrics scrape and the
//! web view's totals; and the size of a listing. A listing row's title and author are cut in
//! the statement ([`LISTED_TITLE_CHARS`], [`LISTED_AUTHOR_CHARS`]: rows stored before the
//! feed's fields were bounded, and titles taken from pages, can be megabytes), and a page of
//! rows ends early, before its limit, when its JSON would pass [`LISTING_BUDGET_BYTES`]
//! ([`fit_listing`]); its cursor then points after its last row.

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

/// The characters of a title a listing row carries (`articles` listings and search hits);
/// the whole title is in the article.
pub const LISTED_TITLE_CHARS: usize = 1024;
/// The characters of an author a listing row carries.
pub const LISTED_AUTHOR_CHARS: usize = 256;
/// The most bytes of rows, as JSON, that one page of a listing carries (the API's
/// `/articles` and `/search`, the web view's lists, the MCP listings): at least one row.
pub const LISTING_BUDGET_BYTES: usize = 1024 * 1024;

/// Keeps the first rows of `rows` whose JSON fits in `budget` bytes, and always the first
/// row (whose columns are bounded); true when rows were left out.
pub fn fit_listing<T: Serialize>(rows: &mut Vec<T>, budget: usize) -> bool {
    let mut used = 0usize;
    let fitting = rows
        .iter()
        .position(|row| {
            used = used.saturating_add(json_len(row));
            used > budget
        })
        .map_or(rows.len(), |first_over| first_over.max(1));
    let cut = fitting < rows.len();
    rows.truncate(fitting);
    cut
}

/// The length of `value` as JSON, counted without writing it anywhere.
fn json_len<T: Serialize>(value: &T) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_ends_before_its_budget_but_keeps_one_row() {
        let mut rows = vec!["a".repeat(10), "b".repeat(10), "c".repeat(10)];
        assert!(fit_listing(&mut rows, 25));
        assert_eq!(rows.len(), 2, "12 bytes of JSON each");
        let mut huge = vec!["x".repeat(100), "y".to_string()];
        assert!(fit_listing(&mut huge, 10));
        assert_eq!(huge.len(), 1);
        let mut small = vec![1, 2, 3];
        assert!(!fit_listing(&mut small, 100));
        assert_eq!(small.len(), 3);
    }

    #[test]
    fn listing_statements_cut_titles_and_authors() {
        let title = format!(".title, 1, {LISTED_TITLE_CHARS}) AS title");
        let author = format!(".author, 1, {LISTED_AUTHOR_CHARS}) AS author");
        for statement in [
            super::super::sql::LIST_ARTICLES_ASCENDING,
            super::super::sql::LIST_ARTICLES_NEWEST_FIRST,
            super::super::sql::LIST_TYPE_ARTICLES_ASCENDING,
            super::super::sql::LIST_FEED_ARTICLES_ASCENDING,
            super::super::sql::LIST_FEED_ARTICLES_NEWEST_FIRST,
        ]
        .iter()
        .flat_map(|dialects| [dialects.sqlite, dialects.postgres])
        {
            assert!(statement.contains(&title), "{statement}");
            assert!(statement.contains(&author), "{statement}");
        }
        for statement in [
            super::super::sql::SEARCH.sqlite,
            super::super::sql::SEARCH.postgres,
        ] {
            assert!(statement.contains(&title), "{statement}");
        }
    }
}
