//! The webhook delivery queue: the configured webhooks (`webhooks`, `webhook_feeds`) and one
//! row per (webhook, article) in `webhook_deliveries`.
//!
//! Rows are written in the article's own transaction (`articles.rs`), so a stored article
//! never lacks its deliveries. An attempt is taken by bumping the row's attempt count from
//! the value read ([`Store::claim_delivery`]), so two processes never send one attempt
//! twice; a process that dies mid-attempt leaves the row due again after its timeout, which
//! makes delivery at-least-once.

use chrono::{DateTime, Utc};

use super::{
    FailureKind, OwnKind, QueryContext, Stage, Store, StoreError, WriteKind, db_time, now, on_pool,
    sql,
};
use crate::config::WebhookConfig;

/// Where a delivery stands (`webhook_deliveries.state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryState {
    /// Not yet answered with a 2xx; due from `next_attempt_at`.
    Pending,
    /// Answered with a 2xx.
    Delivered,
    /// Given up after the last attempt.
    Failed,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Failed => "failed",
        }
    }
}

/// A delivery whose time has come.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct DueDelivery {
    pub webhook_id: i64,
    /// [`WebhookConfig::key`] of its webhook.
    pub webhook_key: String,
    pub article_id: i64,
    /// Attempts made before this one.
    pub attempts: i64,
}

/// A delivery given up, as its failure row names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenUpDelivery {
    pub failure_id: i64,
    pub webhook_key: String,
    pub article_id: i64,
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryOutcome {
    Delivered,
    /// Failed; tried again at the given time.
    Retry(DateTime<Utc>, String),
    /// Failed for the last time.
    GivenUp(String),
}

/// One row of the queue, for reports and tests.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct DeliveryRecord {
    pub webhook_key: String,
    pub article_id: i64,
    pub state: String,
    pub attempts: i64,
    pub delivered_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

impl Store {
    /// Makes the webhook tables match the configuration in one transaction: configured
    /// webhooks (by key) active with their feed lists, the others inactive (their pending
    /// deliveries wait until they are configured again). Call after [`Store::sync_feeds`].
    pub async fn sync_webhooks(&self, webhooks: &[WebhookConfig]) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            sqlx::query(sql::DEACTIVATE_ALL_WEBHOOKS)
                .bind(now())
                .execute(&mut *tx)
                .await
                .context("deactivating webhooks")?;
            for webhook in webhooks {
                let id: i64 = sqlx::query_scalar(sql::UPSERT_WEBHOOK)
                    .bind(webhook.key())
                    .bind(webhook.feeds.is_none())
                    .bind(webhook.skip_duplicates)
                    .fetch_one(&mut *tx)
                    .await
                    .context("adding a configured webhook")?;
                sqlx::query(sql::DELETE_WEBHOOK_FEEDS)
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .context("clearing a webhook's feeds")?;
                for feed in webhook.feeds.iter().flatten() {
                    sqlx::query(sql::INSERT_WEBHOOK_FEED)
                        .bind(id)
                        .bind(feed)
                        .execute(&mut *tx)
                        .await
                        .context("naming a webhook's feed")?;
                }
            }
            tx.commit().await.context("committing the webhook list")
        })
    }

    /// Forgets the webhooks removed from the configuration before `before`, with their
    /// deliveries (pending ones included); the number forgotten. A webhook configured again
    /// sooner resumes its pending deliveries.
    pub async fn forget_removed_webhooks(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        on_pool!(self, pool => {
            sqlx::query(sql::DELETE_REMOVED_WEBHOOKS)
                .bind(db_time(before))
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })
        .context("forgetting removed webhooks")
    }

    /// Up to `limit` deliveries due now, the most overdue first.
    pub async fn due_deliveries(&self, limit: i64) -> Result<Vec<DueDelivery>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::DUE_DELIVERIES)
                .bind(DeliveryState::Pending.as_str())
                .bind(db_time(now()))
                .bind(limit.max(0))
                .fetch_all(pool)
                .await
        })
        .context("reading due deliveries")
    }

    /// Takes one attempt of `delivery`, not due again before `until` (the attempt's longest
    /// run). False when another process took it first.
    pub async fn claim_delivery(
        &self,
        delivery: &DueDelivery,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let claimed = on_pool!(self, pool => {
            sqlx::query(sql::CLAIM_DELIVERY)
                .bind(delivery.webhook_id)
                .bind(delivery.article_id)
                .bind(delivery.attempts)
                .bind(DeliveryState::Pending.as_str())
                .bind(db_time(until))
                .execute(pool)
                .await
                .map(|done| done.rows_affected() == 1)
        });
        claimed.context("taking a delivery")
    }

    /// Records how an attempt ended.
    pub async fn settle_delivery(
        &self,
        delivery: &DueDelivery,
        outcome: &DeliveryOutcome,
    ) -> Result<(), StoreError> {
        let at = db_time(now());
        let (state, next, delivered_at, error) = match outcome {
            DeliveryOutcome::Delivered => (DeliveryState::Delivered, at, Some(at), None),
            DeliveryOutcome::Retry(next, error) => {
                (DeliveryState::Pending, db_time(*next), None, Some(error))
            }
            DeliveryOutcome::GivenUp(error) => (DeliveryState::Failed, at, None, Some(error)),
        };
        on_pool!(self, pool => {
            sqlx::query(sql::SETTLE_DELIVERY)
                .bind(delivery.webhook_id)
                .bind(delivery.article_id)
                .bind(state.as_str())
                .bind(next)
                .bind(delivered_at)
                .bind(error)
                .execute(pool)
                .await
                .map(drop)
        })
        .context("recording a delivery attempt")
    }

    /// Records a delivery given up after its last attempt as a failure at stage `webhook`,
    /// kind `given_up`, against the article's feed and URL; the message names the webhook
    /// (its key) and the article (its id), which is what `gleaner webhooks redeliver` reads.
    pub async fn record_given_up_delivery(
        &self,
        delivery: &DueDelivery,
        attempts: u32,
        error: &str,
    ) -> Result<(), StoreError> {
        let message = given_up_message(&delivery.webhook_key, delivery.article_id, attempts, error);
        let inserted = on_pool!(self, pool => {
            sqlx::query(sql::INSERT_DELIVERY_FAILURE)
                .bind(now())
                .bind(delivery.article_id)
                .bind(Stage::Webhook.as_str())
                .bind(FailureKind::Own(OwnKind::GivenUp).as_str())
                .bind(message)
                .execute(pool)
                .await
                .map(drop)
        })
        .context("recording a given-up delivery");
        self.noted(WriteKind::Failures, inserted)
    }

    /// How many deliveries were given up since `since` (failures at stage `webhook`).
    pub async fn given_up_deliveries_since(&self, since: DateTime<Utc>) -> Result<i64, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_scalar(sql::COUNT_FAILURES_SINCE)
                .bind(Stage::Webhook.as_str())
                .bind(db_time(since))
                .fetch_one(pool)
                .await
        })
        .context("counting given-up deliveries")
    }

    /// The deliveries given up (failure rows at stage `webhook`) since `since`, oldest first.
    /// Rows whose message is not one [`given_up_message`] wrote are left out.
    pub async fn given_up_deliveries(
        &self,
        since: Option<DateTime<Utc>>,
    ) -> Result<Vec<GivenUpDelivery>, StoreError> {
        let rows: Vec<(i64, String)> = on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_GIVEN_UP_FAILURES)
                .bind(Stage::Webhook.as_str())
                .bind(FailureKind::Own(OwnKind::GivenUp).as_str())
                .bind(since.map(db_time))
                .fetch_all(pool)
                .await
        })
        .context("reading given-up deliveries")?;
        Ok(rows
            .into_iter()
            .filter_map(|(failure_id, message)| {
                let (webhook_key, article_id) = parse_given_up_message(&message)?;
                Some(GivenUpDelivery {
                    failure_id,
                    webhook_key,
                    article_id,
                })
            })
            .collect())
    }

    /// Puts a given-up delivery back in the queue, due now with its attempts counted anew,
    /// and removes its failure row (a new one is written if it is given up again). Whether
    /// its delivery row still exists (a webhook forgotten, an article pruned: not).
    pub async fn requeue_given_up(&self, given_up: &GivenUpDelivery) -> Result<bool, StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin_with(self.begin_write()).await.context("beginning a transaction")?;
            let requeued = sqlx::query(sql::REQUEUE_DELIVERY)
                .bind(&given_up.webhook_key)
                .bind(given_up.article_id)
                .bind(DeliveryState::Pending.as_str())
                .bind(db_time(now()))
                .execute(&mut *tx)
                .await
                .context("queueing a delivery again")?
                .rows_affected()
                > 0;
            sqlx::query(sql::DELETE_FAILURE)
                .bind(given_up.failure_id)
                .execute(&mut *tx)
                .await
                .context("removing a given-up delivery's failure")?;
            tx.commit().await.context("committing a redelivery")?;
            Ok(requeued)
        })
    }

    /// How many deliveries of configured webhooks are still pending.
    pub async fn pending_deliveries(&self) -> Result<i64, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_scalar(sql::COUNT_DELIVERIES)
                .bind(DeliveryState::Pending.as_str())
                .fetch_one(pool)
                .await
        })
        .context("counting pending deliveries")
    }

    /// When the next pending delivery of a configured webhook is due.
    pub async fn next_delivery_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_scalar(sql::NEXT_DELIVERY_DUE)
                .bind(DeliveryState::Pending.as_str())
                .fetch_optional(pool)
                .await
        })
        .context("reading the next delivery time")
    }

    /// Every delivery, by article then webhook.
    pub async fn deliveries(&self) -> Result<Vec<DeliveryRecord>, StoreError> {
        on_pool!(self, pool => sqlx::query_as(sql::SELECT_DELIVERIES).fetch_all(pool).await)
            .context("listing deliveries")
    }
}

/// The message of a given-up delivery's failure row: `webhook <key> article <id>: given up
/// after <n> attempts: <error>`.
pub fn given_up_message(webhook_key: &str, article_id: i64, attempts: u32, error: &str) -> String {
    format!(
        "webhook {webhook_key} article {article_id}: given up after {attempts} attempts: {error}"
    )
}

/// The webhook key and article id of a [`given_up_message`].
pub fn parse_given_up_message(message: &str) -> Option<(String, i64)> {
    let rest = message.strip_prefix("webhook ")?;
    let (key, rest) = rest.split_once(" article ")?;
    let (article, _) = rest.split_once(':')?;
    Some((key.to_string(), article.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_up_message_gives_back_its_webhook_and_article() {
        let message = given_up_message("0123abcd0123abcd", 42, 3, "HTTP status 500: oops");
        assert_eq!(
            parse_given_up_message(&message),
            Some(("0123abcd0123abcd".to_string(), 42))
        );
        assert_eq!(parse_given_up_message("something else"), None);
    }
}
