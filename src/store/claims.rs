//! The consumers' work queue: claims with leases, and the per-consumer results.
//!
//! A consumer (say `summarizer`, run as several workers) claims articles it has not finished
//! and that none of its workers holds. A claim is a lease: it ends when the worker reports the
//! article done, or when it expires and the article becomes claimable again. Each consumer has
//! its own queue over every stored article, so a summarizer and an indexer each see them all.
//!
//! Claiming is one transaction. On PostgreSQL the candidate articles are locked with
//! `FOR NO KEY UPDATE SKIP LOCKED` (the `FOR UPDATE … SKIP LOCKED` family, weak enough not to
//! block foreign-key checks), so concurrent claimers pass over each other's rows instead of
//! waiting. On SQLite the transaction is `BEGIN IMMEDIATE`: one writer at a time. On both, the
//! upsert only takes over a row whose lease has expired and that is not done, so a claim that
//! lost a race returns fewer articles, never one somebody else holds.
//!
//! The `lease` column counts the claims of a (consumer, article) pair and is the token a
//! worker may hand back with its result: after a lease expired and another worker re-claimed
//! the article, the first worker's token is stale and its result is refused.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use sqlx::types::Json;

use super::model::{Article, PageType};
use super::{Dialects, QueryContext, Store, StoreError, WriteKind, db_time, now, on_pool};

/// An article handed to a consumer's worker, with the lease that covers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimedArticle {
    /// The token to hand back with [`Store::finish_claim`].
    pub lease: i64,
    pub lease_until: DateTime<Utc>,
    pub article: Article,
}

/// The claim state of one article for one consumer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimRecord {
    pub consumer: String,
    pub article_id: i64,
    pub lease: i64,
    pub claimed_at: DateTime<Utc>,
    /// When the current lease ends; `None` once done.
    pub lease_until: Option<DateTime<Utc>>,
    pub done_at: Option<DateTime<Utc>>,
    /// What the consumer reported with `done`, if anything.
    pub result: Option<serde_json::Value>,
}

/// A claim as the statements read it.
#[derive(sqlx::FromRow)]
pub(super) struct ClaimRow {
    consumer: String,
    pub(super) article_id: i64,
    lease: i64,
    claimed_at: DateTime<Utc>,
    lease_until: Option<DateTime<Utc>>,
    done_at: Option<DateTime<Utc>>,
    result: Option<Json<serde_json::Value>>,
}

impl From<ClaimRow> for ClaimRecord {
    fn from(row: ClaimRow) -> Self {
        ClaimRecord {
            consumer: row.consumer,
            article_id: row.article_id,
            lease: row.lease,
            claimed_at: row.claimed_at,
            lease_until: row.lease_until,
            done_at: row.done_at,
            result: row.result.map(|Json(value)| value),
        }
    }
}

/// What reporting an article done did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishOutcome {
    /// The result is stored and the lease ended.
    Done,
    /// No article has this id.
    UnknownArticle,
    /// This consumer never claimed the article.
    NotClaimed,
    /// This consumer already reported the article done.
    AlreadyDone,
    /// The lease token is not the current one: the lease expired and the article was claimed
    /// again.
    StaleLease { current: i64 },
}

/// Which articles a claim may hand out, besides those the consumer has not finished.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaimFilter {
    /// Only articles whose quality is at least this (an article without a quality, stored
    /// before it was estimated, passes).
    pub min_quality: Option<f64>,
    /// One article per near-duplicate cluster: its representative; the copies are not
    /// handed out (a copy that becomes the representative, its own deleted, then is).
    pub skip_duplicates: bool,
    /// Only articles of these page types (`None`: of any).
    pub page_types: Option<Vec<PageType>>,
}

/// A [`ClaimFilter`] narrowed to some feeds and tags: what a claim may hand out and what an
/// output serves. A `ClaimFilter` alone is a selection of every feed and tag.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArticleSelection {
    pub filter: ClaimFilter,
    /// Only articles one of these feeds lists, by name (`None`: of any feed).
    pub feeds: Option<Vec<String>>,
    /// Only articles with one of these tags, in any case (`None`: whatever their tags).
    pub tags: Option<Vec<String>>,
}

impl From<ClaimFilter> for ArticleSelection {
    fn from(filter: ClaimFilter) -> Self {
        ArticleSelection {
            filter,
            ..ArticleSelection::default()
        }
    }
}

impl ArticleSelection {
    /// The page types' names, as the statements bind them (a JSON array).
    fn page_type_names(&self) -> Option<Vec<&'static str>> {
        self.filter
            .page_types
            .as_ref()
            .map(|types| types.iter().map(|t| t.as_str()).collect())
    }
}

/// Which of a consumer's claims a listing shows, by their state at the time of the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimState {
    /// Under a lease that has not ended.
    Leased,
    /// Reported done (with or without a result).
    Done,
    /// Not done, their lease over: the article is claimable again.
    Expired,
    All,
}

impl ClaimState {
    pub const ALL: [ClaimState; 4] = [
        ClaimState::Leased,
        ClaimState::Done,
        ClaimState::Expired,
        ClaimState::All,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ClaimState::Leased => "leased",
            ClaimState::Done => "done",
            ClaimState::Expired => "expired",
            ClaimState::All => "all",
        }
    }

    /// The state of `claim` at `at` (never [`ClaimState::All`]).
    pub fn of(claim: &ClaimRecord, at: DateTime<Utc>) -> ClaimState {
        match (claim.done_at, claim.lease_until) {
            (Some(_), _) => ClaimState::Done,
            (None, Some(until)) if until > at => ClaimState::Leased,
            (None, _) => ClaimState::Expired,
        }
    }
}

impl std::str::FromStr for ClaimState {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ClaimState::ALL
            .into_iter()
            .find(|state| state.as_str() == text.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = ClaimState::ALL.iter().map(|s| s.as_str()).collect();
                format!("state must be one of {}, not {text:?}", names.join(", "))
            })
    }
}

/// What one consumer reported about an article: its result, shown with the article.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimResult {
    pub consumer: String,
    pub done_at: DateTime<Utc>,
    /// The JSON the consumer posted with `done`; `null` when it posted none.
    pub result: Option<serde_json::Value>,
}

impl ClaimResult {
    /// The result of a claim that is done; `None` for one that is not.
    pub fn of(claim: ClaimRecord) -> Option<ClaimResult> {
        Some(ClaimResult {
            done_at: claim.done_at?,
            consumer: claim.consumer,
            result: claim.result,
        })
    }
}

/// One consumer's queue at a moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct QueueDepth {
    pub consumer: String,
    /// Articles this consumer reported done.
    pub done: i64,
    /// Articles under an unexpired lease of this consumer.
    pub leased: i64,
    /// Stored articles this consumer has not reported done (leased ones included).
    pub pending: i64,
}

/// The articles a [`ClaimFilter`] lets through, as conditions on article `a`: quality at least
/// `$q` (NULL: any; an article stored before quality was estimated has none and passes); with
/// `$dup`, only the representative of each near-duplicate cluster; with `$types` (a JSON
/// array of page type names), only articles of those types; with `$feeds` (a JSON array of
/// feed names), only articles one of them lists; with `$tags` (a JSON array), only articles
/// with one of those tags in any case.
macro_rules! article_selection {
    (sqlite, $q:literal, $dup:literal, $types:literal, $feeds:literal, $tags:literal) => {
        concat!(
            " AND (",
            $q,
            " IS NULL OR a.quality IS NULL OR a.quality >= ",
            $q,
            ")
              AND NOT (",
            $dup,
            " AND a.duplicate_of IS NOT NULL)
              AND (",
            $types,
            " IS NULL
                   OR a.page_type IN (SELECT value FROM json_each(",
            $types,
            ")))
              AND (",
            $feeds,
            " IS NULL
                   OR EXISTS (SELECT 1 FROM article_feeds l JOIN feeds f ON f.id = l.feed_id
                              WHERE l.article_id = a.id
                                AND f.name IN (SELECT value FROM json_each(",
            $feeds,
            "))))
              AND (",
            $tags,
            " IS NULL
                   OR EXISTS (SELECT 1 FROM article_tags t
                              WHERE t.article_id = a.id
                                AND lower(t.tag) IN (SELECT lower(value)
                                                     FROM json_each(",
            $tags,
            "))))"
        )
    };
    (postgres, $q:literal, $dup:literal, $types:literal, $feeds:literal, $tags:literal) => {
        concat!(
            " AND (",
            $q,
            "::float8 IS NULL OR a.quality IS NULL OR a.quality >= ",
            $q,
            ")
              AND NOT (",
            $dup,
            " AND a.duplicate_of IS NOT NULL)
              AND (",
            $types,
            "::jsonb IS NULL
                   OR a.page_type IN (SELECT jsonb_array_elements_text(",
            $types,
            "::jsonb)))
              AND (",
            $feeds,
            "::jsonb IS NULL
                   OR EXISTS (SELECT 1 FROM article_feeds l JOIN feeds f ON f.id = l.feed_id
                              WHERE l.article_id = a.id
                                AND f.name IN (SELECT jsonb_array_elements_text(",
            $feeds,
            "::jsonb))))
              AND (",
            $tags,
            "::jsonb IS NULL
                   OR EXISTS (SELECT 1 FROM article_tags t
                              WHERE t.article_id = a.id
                                AND lower(t.tag) IN (SELECT lower(value)
                                                     FROM jsonb_array_elements_text(",
            $tags,
            "::jsonb) AS value)))"
        )
    };
}

/// Claims up to `$4` articles for consumer `$1` at time `$2`, leased until `$3`. Candidates are
/// articles without a claim row for this consumer, or whose lease expired before it was done,
/// and that `$5` to `$9` let through ([`article_selection!`]: quality, one per cluster, page
/// types, feeds, tags). The `ON CONFLICT … WHERE` repeats the claim test on the current row, the guard
/// against a claimer that read an older state.
const CLAIM: Dialects = Dialects {
    sqlite: concat!(
        "INSERT INTO claims (consumer, article_id, lease, claimed_at, lease_until)
             SELECT $1, a.id, 1, $2, $3
             FROM articles a
             WHERE NOT EXISTS (SELECT 1 FROM claims c
                               WHERE c.consumer = $1 AND c.article_id = a.id
                                 AND (c.done_at IS NOT NULL OR c.lease_until > $2))",
        article_selection!(sqlite, "$5", "$6", "$7", "$8", "$9"),
        "
             ORDER BY a.id
             LIMIT $4
             ON CONFLICT (consumer, article_id) DO UPDATE SET
                 lease = claims.lease + 1,
                 claimed_at = excluded.claimed_at,
                 lease_until = excluded.lease_until
             WHERE claims.done_at IS NULL AND claims.lease_until <= excluded.claimed_at
             RETURNING article_id, lease"
    ),
    postgres: concat!(
        "WITH candidates AS (
                   SELECT a.id
                   FROM articles a
                   WHERE NOT EXISTS (SELECT 1 FROM claims c
                                     WHERE c.consumer = $1 AND c.article_id = a.id
                                       AND (c.done_at IS NOT NULL OR c.lease_until > $2))",
        article_selection!(postgres, "$5", "$6", "$7", "$8", "$9"),
        "
                   ORDER BY a.id
                   LIMIT $4
                   FOR NO KEY UPDATE SKIP LOCKED
               )
               INSERT INTO claims (consumer, article_id, lease, claimed_at, lease_until)
               SELECT $1, id, 1, $2, $3 FROM candidates
               ON CONFLICT (consumer, article_id) DO UPDATE SET
                   lease = claims.lease + 1,
                   claimed_at = excluded.claimed_at,
                   lease_until = excluded.lease_until
               WHERE claims.done_at IS NULL AND claims.lease_until <= excluded.claimed_at
               RETURNING article_id, lease"
    ),
};

/// Ends the lease of consumer `$1` on article `$2` at `$3` with result `$4`; with a lease
/// token `$5`, only if it is the current one.
const FINISH: &str = "
    UPDATE claims SET done_at = $3, lease_until = NULL, result = $4
    WHERE consumer = $1 AND article_id = $2 AND done_at IS NULL AND ($5 IS NULL OR lease = $5)
    RETURNING lease";

/// The newest `$1` articles that `$2` to `$6` let through ([`article_selection!`]), newest
/// first: an output's items.
const SELECT_SELECTION: Dialects = Dialects {
    sqlite: concat!(
        "SELECT a.id FROM articles a WHERE 1 = 1",
        article_selection!(sqlite, "$2", "$3", "$4", "$5", "$6"),
        " ORDER BY a.id DESC LIMIT $1"
    ),
    postgres: concat!(
        "SELECT a.id FROM articles a WHERE TRUE",
        article_selection!(postgres, "$2", "$3", "$4", "$5", "$6"),
        " ORDER BY a.id DESC LIMIT $1"
    ),
};

/// [`SELECT_SELECTION`] of one feed, `$5` its name: read along the feed's own key of
/// `article_feeds` (feed, article), newest first, so that a feed with few of the articles is
/// not found by walking every article newest first.
const SELECT_FEED_SELECTION: Dialects = Dialects {
    sqlite: concat!(
        "SELECT a.id FROM article_feeds l JOIN articles a ON a.id = l.article_id
         WHERE l.feed_id = (SELECT id FROM feeds WHERE name = $5)",
        article_selection!(sqlite, "$2", "$3", "$4", "NULL", "$6"),
        " ORDER BY l.article_id DESC LIMIT $1"
    ),
    postgres: concat!(
        "SELECT a.id FROM article_feeds l JOIN articles a ON a.id = l.article_id
         WHERE l.feed_id = (SELECT id FROM feeds WHERE name = $5)",
        article_selection!(postgres, "$2", "$3", "$4", "NULL", "$6"),
        " ORDER BY l.article_id DESC LIMIT $1"
    ),
};

/// Consumer `$1`'s claims in state `$2` (`leased`, `done`, `expired`, `all`) at `$3`, of
/// articles after id `$4`, at most `$5`, in article order: read on the primary key
/// (consumer, article_id).
const SELECT_CONSUMER_CLAIMS: &str = "
    SELECT consumer, article_id, lease, claimed_at, lease_until, done_at, result
    FROM claims
    WHERE consumer = $1 AND article_id > $4
      AND ($2 = 'all'
           OR ($2 = 'done' AND done_at IS NOT NULL)
           OR ($2 = 'leased' AND done_at IS NULL AND lease_until > $3)
           OR ($2 = 'expired' AND done_at IS NULL AND lease_until <= $3))
    ORDER BY article_id
    LIMIT $5";

const SELECT_CLAIM: &str = "
    SELECT consumer, article_id, lease, claimed_at, lease_until, done_at, result
    FROM claims
    WHERE article_id = $1 AND ($2 IS NULL OR consumer = $2)
    ORDER BY consumer";

const ARTICLE_EXISTS: &str = "SELECT COUNT(*) FROM articles WHERE id = $1";

/// Per consumer with any claim: done, leased at `$1`, and stored articles not done.
const QUEUE_DEPTHS: &str = "
    SELECT c.consumer,
           COUNT(c.done_at) AS done,
           COUNT(CASE WHEN c.done_at IS NULL AND c.lease_until > $1 THEN 1 END) AS leased,
           (SELECT COUNT(*) FROM articles) - COUNT(c.done_at) AS pending
    FROM claims c
    GROUP BY c.consumer
    ORDER BY c.consumer";

impl Store {
    /// Claims up to `limit` articles, oldest first, for `consumer`'s worker, each leased for
    /// `lease`. Articles this consumer finished, or that one of its workers holds under an
    /// unexpired lease, are not returned; nor those `selection` leaves out.
    pub async fn claim(
        &self,
        consumer: &str,
        limit: i64,
        lease: Duration,
        selection: impl Into<ArticleSelection>,
    ) -> Result<Vec<ClaimedArticle>, StoreError> {
        let selection = selection.into();
        let claimed_at = now();
        let lease_until = db_time(claimed_at + lease);
        let statement = self.sql(&CLAIM);
        let page_types = selection.page_type_names();
        let (feeds, tags) = (selection.feeds.as_ref(), selection.tags.as_ref());
        let filter = &selection.filter;
        let claimed = async { on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a claim")?;
            let rows = sqlx::query_as(statement)
                .bind(consumer)
                .bind(claimed_at)
                .bind(lease_until)
                .bind(limit.max(0))
                .bind(filter.min_quality)
                .bind(filter.skip_duplicates)
                .bind(page_types.as_ref().map(Json))
                .bind(feeds.map(Json))
                .bind(tags.map(Json))
                .fetch_all(&mut *tx)
                .await
                .context("claiming articles")?;
            tx.commit().await.context("committing a claim")?;
            Ok::<Vec<(i64, i64)>, StoreError>(rows)
        }) }
        .await;
        let mut claimed = self.noted(WriteKind::Claims, claimed)?;
        claimed.sort_unstable();
        let mut articles = Vec::with_capacity(claimed.len());
        for (id, lease) in claimed {
            // Articles are never deleted while claimed; a missing one is simply left out.
            if let Some(article) = self.article(id).await? {
                articles.push(ClaimedArticle {
                    lease,
                    lease_until,
                    article,
                });
            }
        }
        Ok(articles)
    }

    /// Reports `article_id` done by `consumer`, storing `result` and ending the lease. With
    /// `lease`, the report is refused unless that token is the current lease; without it, any
    /// open claim of the consumer is ended (an expired one included, if nobody re-claimed it).
    pub async fn finish_claim(
        &self,
        consumer: &str,
        article_id: i64,
        lease: Option<i64>,
        result: Option<&serde_json::Value>,
    ) -> Result<FinishOutcome, StoreError> {
        let finished: Option<i64> = on_pool!(self, pool => {
            sqlx::query_scalar(FINISH)
                .bind(consumer)
                .bind(article_id)
                .bind(now())
                .bind(result.map(Json))
                .bind(lease)
                .fetch_optional(pool)
                .await
        })
        .context("finishing a claim")?;
        if finished.is_some() {
            return Ok(FinishOutcome::Done);
        }
        if !self.article_exists(article_id).await? {
            return Ok(FinishOutcome::UnknownArticle);
        }
        let record = self.claims_of_article(article_id, Some(consumer)).await?;
        Ok(match record.first() {
            None => FinishOutcome::NotClaimed,
            Some(claim) if claim.done_at.is_some() => FinishOutcome::AlreadyDone,
            Some(claim) => FinishOutcome::StaleLease {
                current: claim.lease,
            },
        })
    }

    /// The claims of an article, one per consumer (only `consumer`'s when given).
    pub async fn claims_of_article(
        &self,
        article_id: i64,
        consumer: Option<&str>,
    ) -> Result<Vec<ClaimRecord>, StoreError> {
        let rows: Vec<ClaimRow> = on_pool!(self, pool => {
            sqlx::query_as(SELECT_CLAIM)
                .bind(article_id)
                .bind(consumer)
                .fetch_all(pool)
                .await
        })
        .context("reading claims")?;
        Ok(rows.into_iter().map(ClaimRecord::from).collect())
    }

    /// What each consumer reported about an article, by consumer: the results of its claims
    /// that are done.
    pub async fn results_of_article(
        &self,
        article_id: i64,
    ) -> Result<Vec<ClaimResult>, StoreError> {
        let claims = self.claims_of_article(article_id, None).await?;
        Ok(claims.into_iter().filter_map(ClaimResult::of).collect())
    }

    /// `consumer`'s claims in `state` now, of articles after `after_id`, at most `limit`, in
    /// article order.
    pub async fn claims_of_consumer(
        &self,
        consumer: &str,
        state: ClaimState,
        after_id: i64,
        limit: i64,
    ) -> Result<Vec<ClaimRecord>, StoreError> {
        let rows: Vec<ClaimRow> = on_pool!(self, pool => {
            sqlx::query_as(SELECT_CONSUMER_CLAIMS)
                .bind(consumer)
                .bind(state.as_str())
                .bind(now())
                .bind(after_id)
                .bind(limit.max(0))
                .fetch_all(pool)
                .await
        })
        .context("reading a consumer's claims")?;
        Ok(rows.into_iter().map(ClaimRecord::from).collect())
    }

    /// The ids of the newest `limit` articles `selection` lets through, newest first (what
    /// an output serves; nothing is claimed). A selection of feeds reads each feed's newest
    /// along its own key and merges them: the articles of a quiet feed are a few among many.
    pub async fn selected_articles(
        &self,
        selection: &ArticleSelection,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let Some(feeds) = &selection.feeds else {
            return self.selected_among_all(selection, limit).await;
        };
        let mut ids: Vec<i64> = Vec::new();
        for feed in feeds {
            ids.extend(self.selected_of_feed(selection, feed, limit).await?);
        }
        // An article several of the feeds list is one item.
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids.dedup();
        ids.truncate(usize::try_from(limit.max(0)).unwrap_or(usize::MAX));
        Ok(ids)
    }

    /// [`Store::selected_articles`] of one feed, by name.
    async fn selected_of_feed(
        &self,
        selection: &ArticleSelection,
        feed: &str,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let statement = self.sql(&SELECT_FEED_SELECTION);
        let page_types = selection.page_type_names();
        let filter = &selection.filter;
        on_pool!(self, pool => {
            sqlx::query_scalar(statement)
                .bind(limit.max(0))
                .bind(filter.min_quality)
                .bind(filter.skip_duplicates)
                .bind(page_types.as_ref().map(Json))
                .bind(feed)
                .bind(selection.tags.as_ref().map(Json))
                .fetch_all(pool)
                .await
        })
        .context("selecting a feed's articles")
    }

    /// [`Store::selected_articles`] whatever the feed.
    async fn selected_among_all(
        &self,
        selection: &ArticleSelection,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let statement = self.sql(&SELECT_SELECTION);
        let page_types = selection.page_type_names();
        let (feeds, tags) = (selection.feeds.as_ref(), selection.tags.as_ref());
        let filter = &selection.filter;
        on_pool!(self, pool => {
            sqlx::query_scalar(statement)
                .bind(limit.max(0))
                .bind(filter.min_quality)
                .bind(filter.skip_duplicates)
                .bind(page_types.as_ref().map(Json))
                .bind(feeds.map(Json))
                .bind(tags.map(Json))
                .fetch_all(pool)
                .await
        })
        .context("selecting articles")
    }

    /// Whether an article with this id is stored.
    pub async fn article_exists(&self, id: i64) -> Result<bool, StoreError> {
        let count: i64 = on_pool!(self, pool => {
            sqlx::query_scalar(ARTICLE_EXISTS).bind(id).fetch_one(pool).await
        })
        .context("looking up an article")?;
        Ok(count > 0)
    }

    /// The queue of every consumer that ever claimed an article.
    pub async fn queue_depths(&self) -> Result<Vec<QueueDepth>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(QUEUE_DEPTHS).bind(now()).fetch_all(pool).await
        })
        .context("measuring the claim queues")
    }
}
