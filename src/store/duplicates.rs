//! Near-duplicate articles in the store: each article's fingerprint and band keys, written in
//! the transaction that stores the article, and the lookup that finds the cluster a new
//! article joins. What a fingerprint is and when two are the same story is
//! `crate::fingerprint`'s; this file only keeps and finds them.
//!
//! The lookup is one statement on the band keys' index
//! (`sql::SELECT_DUPLICATE_CANDIDATES`), limited to the articles fetched in the last
//! [`DUPLICATE_WINDOW`] before the new one: the cost of an insert does not grow with the
//! table (docs/performance.md#near-duplicates has it measured at 1,000,000 articles). The
//! article cursor lock that every article write takes makes the lookup and the insert one
//! step, so two copies stored at once cannot both start a cluster.
//!
//! A cluster's representative (the article every other member's `duplicate_of` names) is
//! chosen by what a copier cannot fake cheaply (`sql::ELECT_REPRESENTATIVE`): an article a
//! feed marked `trusted` lists, then the page another member's led to, then the first
//! stored. It is chosen again when a member that ranks higher is stored, and when the
//! representative is deleted (`prune`, `feeds remove --purge`): the members then point at
//! the next one, and no member names a deleted article.

use chrono::{DateTime, Duration, Utc};

use super::{QueryContext, Store, StoreError, db_time, on_pool, sql};
use crate::fingerprint::{self, Candidate, Fingerprint};

/// How far back a new article's copies are looked for: a wire story is republished within
/// hours or days, and a story told again a month later is news again.
pub const DUPLICATE_WINDOW: Duration = Duration::days(7);

/// The statement that reads a new article's candidates, on both backends: `$1` the start of
/// [`DUPLICATE_WINDOW`], `$2`.. its band keys, one per band. Public for the bench that
/// explains its query plan, so that the plan is the store's own statement's.
pub fn candidates_statement() -> &'static str {
    *sql::SELECT_DUPLICATE_CANDIDATES
}

/// Reads and writes of near-duplicate rows on one connection, inside the caller's transaction.
pub(super) trait NearDuplicates {
    /// The cluster an article fetched at `fetched_at` with this fingerprint joins: the id of
    /// its first article, or `None` when it repeats nothing stored in the window.
    async fn cluster_of(
        &mut self,
        fingerprint: &Fingerprint,
        fetched_at: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError>;

    /// Chooses the representative of the cluster that `first` represents (or represented,
    /// before it was deleted) by [`sql::ELECT_REPRESENTATIVE`]'s rule, and points every
    /// member at it; its id (`first` when it stays, or when no member is left).
    async fn elect_representative(&mut self, first: i64) -> Result<i64, StoreError>;

    /// Gives every cluster whose representative was deleted a new one from its members
    /// ([`NearDuplicates::elect_representative`]), queueing its deliveries to the webhooks
    /// that skip duplicates; how many clusters were re-pointed.
    async fn repair_orphaned_clusters(&mut self, at: DateTime<Utc>) -> Result<u64, StoreError>;

    /// Replaces the band keys of `article_id` with the fingerprint's (none: no keys).
    async fn write_band_keys(
        &mut self,
        article_id: i64,
        fingerprint: Option<&Fingerprint>,
    ) -> Result<(), StoreError>;
}

/// One row of [`sql::SELECT_DUPLICATE_CANDIDATES`].
type CandidateRow = (i64, Option<i64>, Option<Vec<u8>>);

fn candidates(rows: Vec<CandidateRow>) -> Vec<Candidate> {
    rows.into_iter()
        .filter_map(|(id, duplicate_of, bytes)| {
            // A fingerprint that does not read back (written by no known version) is skipped.
            let fingerprint = Fingerprint::from_bytes(bytes.as_deref()?)?;
            Some(Candidate {
                id,
                duplicate_of,
                fingerprint,
            })
        })
        .collect()
}

/// The same statements on both backends; only the connection type differs.
macro_rules! near_duplicates_on {
    ($connection:ty) => {
        impl NearDuplicates for $connection {
            async fn cluster_of(
                &mut self,
                fingerprint: &Fingerprint,
                fetched_at: DateTime<Utc>,
            ) -> Result<Option<i64>, StoreError> {
                let mut query =
                    sqlx::query_as::<_, CandidateRow>(*sql::SELECT_DUPLICATE_CANDIDATES)
                        .bind(db_time(fetched_at - DUPLICATE_WINDOW));
                for key in fingerprint.band_keys() {
                    query = query.bind(key);
                }
                let rows = query
                    .fetch_all(&mut *self)
                    .await
                    .context("looking up near-duplicate articles")?;
                Ok(fingerprint::cluster_of(fingerprint, &candidates(rows)))
            }

            async fn elect_representative(&mut self, first: i64) -> Result<i64, StoreError> {
                let elected: Option<i64> = sqlx::query_scalar(sql::ELECT_REPRESENTATIVE)
                    .bind(first)
                    .fetch_optional(&mut *self)
                    .await
                    .context("choosing a cluster's representative")?;
                let Some(elected) = elected.filter(|&elected| elected != first) else {
                    return Ok(first);
                };
                sqlx::query(sql::REPOINT_CLUSTER)
                    .bind(first)
                    .bind(elected)
                    .execute(&mut *self)
                    .await
                    .context("pointing a cluster at its representative")?;
                Ok(elected)
            }

            async fn repair_orphaned_clusters(
                &mut self,
                at: DateTime<Utc>,
            ) -> Result<u64, StoreError> {
                let orphaned: Vec<i64> = sqlx::query_scalar(sql::SELECT_ORPHANED_CLUSTERS)
                    .fetch_all(&mut *self)
                    .await
                    .context("finding clusters whose representative was deleted")?;
                for &deleted in &orphaned {
                    let elected = self.elect_representative(deleted).await?;
                    if elected == deleted {
                        continue;
                    }
                    sqlx::query(sql::ENQUEUE_REPRESENTATIVE)
                        .bind(elected)
                        .bind(db_time(at))
                        .bind(super::DeliveryState::Pending.as_str())
                        .execute(&mut *self)
                        .await
                        .context("queueing a new representative's deliveries")?;
                }
                Ok(orphaned.len() as u64)
            }

            async fn write_band_keys(
                &mut self,
                article_id: i64,
                fingerprint: Option<&Fingerprint>,
            ) -> Result<(), StoreError> {
                sqlx::query(sql::DELETE_BAND_KEYS)
                    .bind(article_id)
                    .execute(&mut *self)
                    .await
                    .context("replacing an article's band keys")?;
                let Some(fingerprint) = fingerprint else {
                    return Ok(());
                };
                let mut query = sqlx::query(*sql::INSERT_BAND_KEYS).bind(article_id);
                for key in fingerprint.band_keys() {
                    query = query.bind(key);
                }
                query
                    .execute(&mut *self)
                    .await
                    .context("storing an article's band keys")?;
                Ok(())
            }
        }
    };
}

near_duplicates_on!(sqlx::SqliteConnection);
near_duplicates_on!(sqlx::PgConnection);

impl Store {
    /// The cluster a new article with this text, fetched at `fetched_at`, would join: the
    /// lookup an insert makes, on its own (benchmarks, diagnostics).
    pub async fn near_duplicate_of(
        &self,
        text: &str,
        fetched_at: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        let Some(fingerprint) = Fingerprint::of(text) else {
            return Ok(None);
        };
        on_pool!(self, pool => {
            let mut connection = pool.acquire().await.context("taking a connection")?;
            connection.cluster_of(&fingerprint, fetched_at).await
        })
    }

    /// The ids of a cluster's stored articles, its representative (`first`) included, in
    /// ascending order.
    pub async fn cluster_members(&self, first: i64) -> Result<Vec<i64>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_scalar(sql::SELECT_CLUSTER_MEMBERS).bind(first).fetch_all(pool).await
        })
        .context("listing a near-duplicate cluster")
    }
}
