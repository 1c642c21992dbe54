//! Which feeds list an article, and whose fields are the article's own.
//!
//! An article is stored once (one row per normalized URL) and belongs to every feed that
//! lists it: `article_feeds` keeps one row per (feed, article) with that feed's title,
//! author, date, summary and GUID, and a feed's listing shows those. The article's own
//! fields (`articles.feed_id`, title, author, date, summary, GUID: what unfiltered listings,
//! `articles show`, exports and webhooks carry) are its owner's: the feed that publishes it,
//! served from the article's own site ([`publishes`]), or a feed marked `trusted`; else the
//! first feed that listed it. So a feed that lists another site's URL under a title of its
//! own changes nothing that the site's own feed says of it.
//!
//! Removing a feed ([`Listings::adopt_feed_articles`], then `retention`) deletes its rows
//! here; an article it owned passes to the next feed that lists it, and goes only when no
//! other feed does.

use chrono::{DateTime, Utc};

use super::model::*;
use super::{
    QueryContext, Store, StoreError, WriteKind, db_time, on_pool, sql, update_entry_attempt,
};

/// One feed's listing of an article: what the feed's entry says of it.
pub(super) struct Listing<'a> {
    pub feed_id: i64,
    pub guid: Option<&'a str>,
    pub title: &'a str,
    pub author: Option<&'a str>,
    pub published_at: Option<DateTime<Utc>>,
    pub summary: &'a StoredSummary,
    /// The tags this feed gives the article (its entry's and the feed's configured ones),
    /// added to the article's when the feed first lists it.
    pub tags: &'a [String],
}

/// Whether a feed served from `feed_host` publishes the article at `article_url`: the same
/// host, a leading `www.` aside, or one host a subdomain of the other (a site's feed at
/// `feeds.example.org` for its pages at `www.example.org`).
pub fn publishes(feed_host: Option<&str>, article_url: &str) -> bool {
    let Some(feed_host) = feed_host else {
        return false;
    };
    let Some(article_host) = url::Url::parse(article_url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_ascii_lowercase))
    else {
        return false;
    };
    let site = |host: &str| host.strip_prefix("www.").unwrap_or(host).to_string();
    let (feed, article) = (site(&feed_host.to_ascii_lowercase()), site(&article_host));
    let under = |sub: &str, site: &str| {
        sub.strip_suffix(site)
            .is_some_and(|rest| rest.ends_with('.'))
            && site.contains('.')
    };
    feed == article || under(&feed, &article) || under(&article, &feed)
}

/// A feed's claim to an article's own fields: trusted, or the article's publisher.
fn claims(host: Option<&str>, trusted: bool, article_url: &str) -> bool {
    trusted || publishes(host, article_url)
}

/// One row of [`sql::SELECT_ADOPTERS`]: article, its URL, a feed that lists it, its host and
/// trust.
type AdopterRow = (i64, String, i64, Option<String>, bool);

/// The feed each article passes to: the first that claims it, else the first that listed it.
fn adopters(rows: &[AdopterRow]) -> Vec<(i64, i64)> {
    let mut chosen: Vec<(i64, i64, bool)> = Vec::new();
    for (article, url, feed, host, trusted) in rows {
        let claim = claims(host.as_deref(), *trusted, url);
        match chosen.last_mut() {
            Some(last) if last.0 == *article => {
                if claim && !last.2 {
                    *last = (*article, *feed, true);
                }
            }
            _ => chosen.push((*article, *feed, claim)),
        }
    }
    chosen
        .into_iter()
        .map(|(article, feed, _)| (article, feed))
        .collect()
}

/// Listings written on one connection, inside the caller's transaction.
pub(super) trait Listings {
    /// Records that a feed lists an article, as [`Listings::list_in_feed`] does, for an
    /// article the feed has just stored (and so owns), and adds the listing's tags to the
    /// article's (those it has in any case left out). True when the feed did not list it yet.
    async fn record_listing(
        &mut self,
        article_id: i64,
        listing: &Listing<'_>,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Records that a feed lists an article, and gives the feed the article's own fields
    /// when it has a better claim than their owner. True when the feed did not list it yet.
    async fn list_in_feed(
        &mut self,
        article_id: i64,
        listing: &Listing<'_>,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Passes each article that feed `feed_id` owns and another feed lists to the feed with
    /// the best claim; how many passed.
    async fn adopt_feed_articles(&mut self, feed_id: i64) -> Result<u64, StoreError>;
}

/// The same statements on both backends; only the connection type differs.
macro_rules! listings_on {
    ($connection:ty) => {
        impl Listings for $connection {
            async fn record_listing(
                &mut self,
                article_id: i64,
                listing: &Listing<'_>,
                at: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                let added = sqlx::query(sql::INSERT_ARTICLE_FEED)
                    .bind(listing.feed_id)
                    .bind(article_id)
                    .bind(listing.guid)
                    .bind(listing.title)
                    .bind(listing.author)
                    .bind(listing.published_at.map(db_time))
                    .bind(&listing.summary.html)
                    .bind(&listing.summary.text)
                    .bind(db_time(at))
                    .execute(&mut *self)
                    .await
                    .context("recording the feed that lists an article")?
                    .rows_affected();
                if added == 0 {
                    return Ok(false);
                }
                for tag in listing.tags {
                    sqlx::query(sql::INSERT_ARTICLE_TAG)
                        .bind(article_id)
                        .bind(tag)
                        .execute(&mut *self)
                        .await
                        .context("storing an article's tag")?;
                }
                Ok(true)
            }

            async fn list_in_feed(
                &mut self,
                article_id: i64,
                listing: &Listing<'_>,
                at: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                if !self.record_listing(article_id, listing, at).await? {
                    return Ok(false);
                }
                let row: Option<(String, i64, Option<String>, bool, Option<String>, bool)> =
                    sqlx::query_as(sql::SELECT_OWNERSHIP)
                        .bind(article_id)
                        .bind(listing.feed_id)
                        .fetch_optional(&mut *self)
                        .await
                        .context("reading an article's owner")?;
                let Some((url, owner, owner_host, owner_trusted, host, trusted)) = row else {
                    return Ok(true);
                };
                if owner != listing.feed_id
                    && claims(host.as_deref(), trusted, &url)
                    && !claims(owner_host.as_deref(), owner_trusted, &url)
                {
                    take_ownership!(self, article_id, listing.feed_id);
                }
                Ok(true)
            }

            async fn adopt_feed_articles(&mut self, feed_id: i64) -> Result<u64, StoreError> {
                let rows: Vec<AdopterRow> = sqlx::query_as(sql::SELECT_ADOPTERS)
                    .bind(feed_id)
                    .fetch_all(&mut *self)
                    .await
                    .context("finding the feeds that list a removed feed's articles")?;
                let adopted = adopters(&rows);
                for (article_id, adopter) in &adopted {
                    take_ownership!(self, *article_id, *adopter);
                }
                Ok(adopted.len() as u64)
            }
        }
    };
}

/// Article `$article` takes feed `$feed`'s listing as its own fields, on connection `$tx`.
macro_rules! take_ownership {
    ($tx:expr, $article:expr, $feed:expr) => {
        sqlx::query(sql::TAKE_OWNERSHIP)
            .bind($article)
            .bind($feed)
            .execute(&mut *$tx)
            .await
            .context("giving an article its publisher's fields")?;
    };
}
listings_on!(sqlx::SqliteConnection);
listings_on!(sqlx::PgConnection);

impl Store {
    /// Records that the feed of `entry` lists article `article_id`, stored already (from
    /// another feed, or under another URL form), and settles the entry with `attempt`, in one
    /// transaction; the feed's webhooks get the article as a new one of theirs, and the
    /// article gets `tags` (the entry's and the feed's configured ones).
    pub async fn list_known_article(
        &self,
        (entry, tags): (&PendingEntry, &[String]),
        article_id: i64,
        attempt: &EntryAttempt,
    ) -> Result<(), StoreError> {
        let summary = StoredSummary::of(entry.summary.as_deref());
        let listing = Listing {
            feed_id: entry.feed_id,
            guid: entry.guid.as_deref(),
            title: &entry.title,
            author: entry.author.as_deref(),
            published_at: entry.published_at,
            summary: &summary,
            tags,
        };
        let settled = Some((entry.id, attempt));
        self.write_listings(&[(article_id, listing)], settled).await
    }

    /// Records that feed `feed_id` lists the stored articles of `known` (article id, the
    /// feed's entry for it), in one transaction: entries of a feed document whose article
    /// another feed stored, found before they are remembered
    /// ([`Store::known_listing`]).
    pub async fn list_known_entries(
        &self,
        feed_id: i64,
        known: &[(i64, &NewEntry)],
    ) -> Result<(), StoreError> {
        if known.is_empty() {
            return Ok(());
        }
        let summaries: Vec<StoredSummary> = known
            .iter()
            .map(|(_, entry)| StoredSummary::of(entry.summary.as_deref()))
            .collect();
        let listings: Vec<(i64, Listing<'_>)> = known
            .iter()
            .zip(&summaries)
            .map(|((article_id, entry), summary)| {
                let listing = Listing {
                    feed_id,
                    guid: entry.guid.as_deref(),
                    title: &entry.title,
                    author: entry.author.as_deref(),
                    published_at: entry.published_at,
                    summary,
                    tags: &entry.tags,
                };
                (*article_id, listing)
            })
            .collect();
        self.write_listings(&listings, None).await
    }

    /// Writes listings of stored articles, each with its deliveries, and settles `settled`
    /// (an entry and its attempt), in one transaction.
    async fn write_listings(
        &self,
        listings: &[(i64, Listing<'_>)],
        settled: Option<(i64, &EntryAttempt)>,
    ) -> Result<(), StoreError> {
        let at = super::now();
        let written = async { on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            for (article_id, listing) in listings {
                if !tx.list_in_feed(*article_id, listing, at).await? {
                    continue;
                }
                let representative: Option<Option<i64>> =
                    sqlx::query_scalar(sql::SELECT_DUPLICATE_OF)
                        .bind(article_id)
                        .fetch_optional(&mut *tx)
                        .await
                        .context("reading an article's cluster")?;
                sqlx::query(sql::ENQUEUE_DELIVERIES)
                    .bind(article_id)
                    .bind(at)
                    .bind(listing.feed_id)
                    .bind(super::DeliveryState::Pending.as_str())
                    .bind(representative.flatten())
                    .execute(&mut *tx)
                    .await
                    .context("queueing webhook deliveries")?;
            }
            if let Some((entry_id, attempt)) = settled {
                update_entry_attempt!(entry_id, attempt)
                                        .execute(&mut *tx)
                    .await
                    .context("recording an entry attempt")?;
            }
            tx.commit().await.context("committing a feed's listings")?;
            Ok::<(), StoreError>(())
        }) }
        .await;
        self.noted(WriteKind::Articles, written)
    }

    /// The stored article an entry of feed `feed_id` would duplicate (as
    /// [`Store::known_article`]), and whether the feed lists it already.
    pub async fn known_listing(
        &self,
        feed_id: i64,
        guid: Option<&str>,
        url: &str,
    ) -> Result<Option<(i64, bool)>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_KNOWN_LISTING)
                .bind(url)
                .bind(feed_id)
                .bind(guid)
                .fetch_optional(pool)
                .await
        })
        .context("looking up a known article")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feed_publishes_the_pages_of_its_own_site_only() {
        let url = "https://www.example.org/2024/story.html";
        assert!(publishes(Some("example.org"), url));
        assert!(publishes(Some("www.example.org"), url));
        assert!(publishes(Some("feeds.example.org"), url));
        assert!(publishes(Some("EXAMPLE.org"), url));
        assert!(!publishes(Some("example.org.evil.net"), url));
        assert!(!publishes(Some("notexample.org"), url));
        assert!(!publishes(Some("org"), url));
        assert!(!publishes(None, url));
        assert!(!publishes(Some("example.org"), "not a url"));
    }

    #[test]
    fn a_removed_feeds_article_passes_to_its_publisher_else_the_first_to_list_it() {
        let url = "https://real.example/a".to_string();
        let rows: Vec<AdopterRow> = vec![
            (1, url.clone(), 10, Some("aggregator.example".into()), false),
            (1, url.clone(), 11, Some("real.example".into()), false),
            (2, url.clone(), 12, Some("other.example".into()), false),
            (2, url.clone(), 13, Some("another.example".into()), false),
            (3, url, 14, Some("x.example".into()), true),
        ];
        assert_eq!(adopters(&rows), [(1, 11), (2, 12), (3, 14)]);
    }
}
