//! Full-text search: the bounded query, and the time budget of one search.
//!
//! Owns [`SearchQuery`]: free text becomes a list of distinct words, each required unless it
//! starts with `-`. A query longer than [`MAX_QUERY_CHARS`] or with more than
//! [`MAX_QUERY_TERMS`] distinct words is refused ([`SearchQueryError`]), because ranking and
//! snippets cost grows with the square of the terms on pages that hold them often. Repeated
//! words count once. Whatever the words, one search stops after the store's search budget
//! ([`DEFAULT_SEARCH_BUDGET`]): a progress handler on SQLite, `statement_timeout` on
//! PostgreSQL. A search whose future is dropped (the client went away) is interrupted too.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Pool, QueryContext, SearchHit, Store, StoreError, sql};

/// The longest query text accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 256;
/// The most distinct words a query may hold.
pub const MAX_QUERY_TERMS: usize = 8;
/// How long one search may run before it is stopped.
pub const DEFAULT_SEARCH_BUDGET: Duration = Duration::from_secs(10);
/// SQLite virtual-machine steps between two checks of the budget.
const PROGRESS_STEPS: i32 = 1_000;

/// Why a query text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchQueryError {
    #[error("the query is {chars} characters long; at most {MAX_QUERY_CHARS} are allowed")]
    TooLong { chars: usize },
    #[error("the query has {terms} distinct words; at most {MAX_QUERY_TERMS} are allowed")]
    TooManyTerms { terms: usize },
}

/// A search query within the bounds: distinct words, lowercase, no quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    required: Vec<String>,
    excluded: Vec<String>,
}

impl SearchQuery {
    /// Parses free text. Every word is required; the words of a piece with a leading `-` are
    /// excluded. Words are split the way the index splits them (at anything but a letter or
    /// digit), so that each counts toward the bound; repeated words count once.
    pub fn parse(text: &str) -> Result<SearchQuery, SearchQueryError> {
        let chars = text.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(SearchQueryError::TooLong { chars });
        }
        let mut query = SearchQuery {
            required: Vec::new(),
            excluded: Vec::new(),
        };
        for piece in text.split_whitespace() {
            let (list, piece) = match piece.strip_prefix('-') {
                Some(rest) => (&mut query.excluded, rest),
                None => (&mut query.required, piece),
            };
            for word in piece.split(|c: char| !c.is_alphanumeric()) {
                let word = word.to_lowercase();
                if !word.is_empty() && !list.contains(&word) {
                    list.push(word);
                }
            }
        }
        let terms = query.required.len() + query.excluded.len();
        if terms > MAX_QUERY_TERMS {
            return Err(SearchQueryError::TooManyTerms { terms });
        }
        Ok(query)
    }

    /// True when nothing is required: such a query matches nothing.
    pub fn is_empty(&self) -> bool {
        self.required.is_empty()
    }

    /// FTS5 syntax that cannot be a syntax error: every word quoted.
    fn to_fts5(&self) -> String {
        let mut query = quoted(&self.required).join(" ");
        for word in quoted(&self.excluded) {
            query.push_str(" NOT ");
            query.push_str(&word);
        }
        query
    }

    /// PostgreSQL web-search syntax with the same meaning: every word quoted, so that `or`
    /// is a word and not an operator.
    fn to_websearch(&self) -> String {
        let mut query = quoted(&self.required).join(" ");
        for word in quoted(&self.excluded) {
            query.push_str(" -");
            query.push_str(&word);
        }
        query
    }
}

fn quoted(words: &[String]) -> Vec<String> {
    words.iter().map(|word| format!("\"{word}\"")).collect()
}

/// True for the error a stopped statement gives: SQLite's `SQLITE_INTERRUPT` (9),
/// PostgreSQL's `query_canceled` (57014).
fn is_interruption(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => matches!(db.code().as_deref(), Some("9" | "57014")),
        _ => false,
    }
}

impl Store {
    /// Full-text search over titles and texts, best match first: every required word
    /// appears (in any order, any case), no excluded one does. A query beyond the bounds is
    /// [`StoreError::SearchQuery`]; a search longer than the store's budget stops with
    /// [`StoreError::SearchTimedOut`].
    pub async fn search(&self, text: &str, limit: i64) -> Result<Vec<SearchHit>, StoreError> {
        let query = SearchQuery::parse(text)?;
        if query.is_empty() {
            return Ok(Vec::new());
        }
        let limit = limit.max(0);
        let result = match &self.pool {
            Pool::Sqlite(pool) => {
                search_sqlite(pool, &query.to_fts5(), limit, self.search_budget).await
            }
            Pool::Postgres(pool) => {
                search_postgres(pool, &query.to_websearch(), limit, self.search_budget).await
            }
        };
        match result {
            Err(error) if is_interruption(&error) => Err(StoreError::SearchTimedOut {
                budget: self.search_budget,
            }),
            other => other.context("searching articles"),
        }
    }
}

/// One search on its own connection, interrupted by a progress handler once the budget is
/// spent or once this future is dropped. A connection whose search did not end normally is
/// closed rather than returned to the pool, so its handler never stops anyone else's query.
async fn search_sqlite(
    pool: &sqlx::SqlitePool,
    fts5: &str,
    limit: i64,
    budget: Duration,
) -> Result<Vec<SearchHit>, sqlx::Error> {
    let mut guarded = Interruptible::acquire(pool).await?;
    let alive = Arc::new(());
    let watched = Arc::downgrade(&alive);
    let deadline = Instant::now() + budget;
    guarded
        .connection
        .lock_handle()
        .await?
        .set_progress_handler(PROGRESS_STEPS, move || {
            watched.strong_count() > 0 && Instant::now() < deadline
        });
    let hits = sqlx::query_as(sql::SEARCH.sqlite)
        .bind(fts5)
        .bind(limit)
        .fetch_all(&mut *guarded.connection)
        .await?;
    guarded
        .connection
        .lock_handle()
        .await?
        .remove_progress_handler();
    guarded.finished = true;
    drop(alive);
    Ok(hits)
}

/// One search on its own connection whose `statement_timeout` is the budget for the time of
/// the search. No transaction: a cancelled `BEGIN` could leave one open on a pooled
/// connection. A connection whose search did not end normally (the future dropped, the
/// timeout hit) is closed, so neither its timeout nor a half-read answer reaches anyone else.
async fn search_postgres(
    pool: &sqlx::PgPool,
    websearch: &str,
    limit: i64,
    budget: Duration,
) -> Result<Vec<SearchHit>, sqlx::Error> {
    let mut guarded = Interruptible::acquire(pool).await?;
    let millis = budget.as_millis().clamp(1, i32::MAX as u128) as i32;
    sqlx::query(sql::SET_STATEMENT_TIMEOUT)
        .bind(millis.to_string())
        .execute(&mut *guarded.connection)
        .await?;
    let hits = sqlx::query_as(sql::SEARCH.postgres)
        .bind(websearch)
        .bind(limit)
        .fetch_all(&mut *guarded.connection)
        .await?;
    sqlx::query(sql::RESET_STATEMENT_TIMEOUT)
        .execute(&mut *guarded.connection)
        .await?;
    guarded.finished = true;
    Ok(hits)
}

/// A pooled connection set up for one search (a progress handler, a statement timeout):
/// returned to the pool once the search undid that setup, closed when dropped before.
struct Interruptible<DB: sqlx::Database> {
    connection: sqlx::pool::PoolConnection<DB>,
    finished: bool,
}

impl<DB: sqlx::Database> Interruptible<DB> {
    async fn acquire(pool: &sqlx::Pool<DB>) -> Result<Self, sqlx::Error> {
        Ok(Interruptible {
            connection: pool.acquire().await?,
            finished: false,
        })
    }
}

impl<DB: sqlx::Database> Drop for Interruptible<DB> {
    fn drop(&mut self) {
        if !self.finished {
            self.connection.close_on_drop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_QUERY_TERMS, SearchQuery, SearchQueryError};

    #[test]
    fn queries_are_always_well_formed() {
        let fts5 = |text: &str| SearchQuery::parse(text).map(|q| q.to_fts5());
        assert_eq!(fts5("rust  async"), Ok("\"rust\" \"async\"".into()));
        assert_eq!(fts5("say \"hi\" AND"), Ok("\"say\" \"hi\" \"and\"".into()));
        assert_eq!(fts5("rust -python"), Ok("\"rust\" NOT \"python\"".into()));
        assert!(SearchQuery::parse("-only").is_ok_and(|q| q.is_empty()));
        assert!(SearchQuery::parse("*** (").is_ok_and(|q| q.is_empty()));
        assert_eq!(fts5("e-mail a.a.a"), Ok("\"e\" \"mail\" \"a\"".into()));
        let web = SearchQuery::parse("rust or -python").map(|q| q.to_websearch());
        assert_eq!(web, Ok("\"rust\" \"or\" -\"python\"".into()));
    }

    #[test]
    fn repeated_words_count_once_and_too_many_are_refused() {
        let repeated = "word ".repeat(40) + &"word.".repeat(10);
        let query = SearchQuery::parse(&repeated).expect("50 times one word is one term");
        assert_eq!(query.to_fts5(), "\"word\"");
        let many: Vec<String> = (0..=MAX_QUERY_TERMS).map(|i| format!("w{i}")).collect();
        assert_eq!(
            SearchQuery::parse(&many.join(" ")),
            Err(SearchQueryError::TooManyTerms {
                terms: MAX_QUERY_TERMS + 1
            })
        );
        assert!(matches!(
            SearchQuery::parse(&"a".repeat(300)),
            Err(SearchQueryError::TooLong { chars: 300 })
        ));
    }
}
