//! Webhook delivery: each newly stored article posted, as `gleaner export` writes it, to every
//! `[[webhooks]]` entry that takes its feed (docs/webhooks.md is the receiver's contract).
//!
//! Owns the sending side of the queue that `store::webhooks` keeps: a pass takes the due rows,
//! builds each body once from the stored article, signs it (`X-Gleaner-Signature`, HMAC-SHA256
//! of the exact bytes), posts it through the [`Fetcher`] (so the SSRF guard and the timeout
//! apply), and records the outcome: a 2xx is delivered; an error, a non-2xx status or a
//! timeout is tried again after `retry_seconds`, doubling with every failure, until
//! `max_attempts`, then the row is marked failed, logged, recorded as a failure at stage `webhook` (what
//! `gleaner failures` and the web view list, and `gleaner webhooks redeliver` sends again) and
//! counted in `gleaner_webhook_deliveries_given_up_total`. Ingestion never waits for any of
//! it: the rows are written with the article, and [`run_deliveries`] sends them in the
//! background of `gleaner run`; `poll --once` calls [`deliver_pending`] before it exits.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use hmac::{Hmac, KeyInit, Mac};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use sha2::Sha256;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::config::MAX_WEBHOOK_WAIT_SECONDS;
use crate::config::WebhookConfig;
use crate::fetch::Fetcher;
use crate::store::{
    DeliveryOutcome, DeliveryState, DueDelivery, GivenUpDelivery, OwnKind, Stage, Store,
    StoreError, now,
};

/// Deliveries read per query.
const BATCH: i64 = 32;
/// Deliveries sent at once.
const CONCURRENT_SENDS: usize = 4;
/// How often the background task looks for due deliveries.
const PASS_INTERVAL: Duration = Duration::from_secs(1);
/// An attempt's hold on its row beyond the request timeout, so that another process does not
/// take it while it runs.
const CLAIM_MARGIN: Duration = Duration::from_secs(30);

/// `X-Gleaner-Event`: what happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookEvent {
    ArticleCreated,
}

impl WebhookEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            WebhookEvent::ArticleCreated => "article.created",
        }
    }
}

pub const EVENT_HEADER: &str = "x-gleaner-event";
pub const DELIVERY_HEADER: &str = "x-gleaner-delivery";
pub const SIGNATURE_HEADER: &str = "x-gleaner-signature";

/// What deliveries need from the running configuration.
#[derive(Debug, Clone)]
pub struct Targets {
    pub webhooks: Arc<[WebhookConfig]>,
    pub fetcher: Fetcher,
}

impl Targets {
    pub fn new(webhooks: &[WebhookConfig], fetcher: &Fetcher) -> Targets {
        Targets {
            webhooks: webhooks.into(),
            fetcher: fetcher.clone(),
        }
    }

    fn by_key(&self, key: &str) -> Option<&WebhookConfig> {
        self.webhooks.iter().find(|webhook| webhook.key() == key)
    }
}

/// `sha256=<lowercase hex HMAC-SHA256 of body with secret>`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    // HMAC takes a key of any length: this cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// `X-Gleaner-Delivery`: the same for every attempt of one article to one webhook.
pub fn delivery_id(article_id: i64, webhook_key: &str) -> String {
    format!("{article_id}-{webhook_key}")
}

/// What a pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeliveryPass {
    pub delivered: usize,
    pub failed_attempts: usize,
}

/// Sends every delivery due now, until none is left due.
pub async fn deliver_due(store: &Store, targets: &Targets) -> Result<DeliveryPass, StoreError> {
    let mut pass = DeliveryPass::default();
    loop {
        let due = store.due_deliveries(BATCH).await?;
        let known: Vec<DueDelivery> = due
            .into_iter()
            .filter(|delivery| targets.by_key(&delivery.webhook_key).is_some())
            .collect();
        if known.is_empty() {
            return Ok(pass);
        }
        let mut attempts = futures::stream::iter(known)
            .map(|delivery| attempt(store, targets, delivery))
            .buffer_unordered(CONCURRENT_SENDS);
        let mut sent_any = false;
        while let Some(result) = attempts.next().await {
            match result? {
                Some(true) => pass.delivered += 1,
                Some(false) => pass.failed_attempts += 1,
                None => continue,
            }
            sent_any = true;
        }
        if !sent_any {
            // Every row was taken by another process: it is theirs to send.
            return Ok(pass);
        }
    }
}

/// One attempt of one delivery: `None` when another process took it first, else whether it
/// was delivered.
async fn attempt(
    store: &Store,
    targets: &Targets,
    delivery: DueDelivery,
) -> Result<Option<bool>, StoreError> {
    let Some(webhook) = targets.by_key(&delivery.webhook_key) else {
        return Ok(None);
    };
    let hold = targets.fetcher.request_timeout() + CLAIM_MARGIN;
    let until = now() + chrono::Duration::from_std(hold).unwrap_or(chrono::Duration::MAX);
    if !store.claim_delivery(&delivery, until).await? {
        return Ok(None);
    }
    let attempts = u32::try_from(delivery.attempts + 1).unwrap_or(u32::MAX);
    let outcome = match send(store, &targets.fetcher, webhook, &delivery).await? {
        Ok(()) => DeliveryOutcome::Delivered,
        Err(error) if attempts >= webhook.max_attempts => {
            tracing::warn!(
                webhook = %webhook.display_url(),
                article = delivery.article_id,
                attempts,
                %error,
                "webhook delivery failed for the last time; given up"
            );
            DeliveryOutcome::GivenUp(error)
        }
        Err(error) => {
            let wait = backoff(webhook.retry_after, attempts);
            tracing::info!(
                webhook = %webhook.display_url(),
                article = delivery.article_id,
                attempts,
                retry_in_s = wait.as_secs(),
                %error,
                "webhook delivery failed; retrying"
            );
            let next = now() + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::MAX);
            DeliveryOutcome::Retry(next, error)
        }
    };
    store.settle_delivery(&delivery, &outcome).await?;
    if let DeliveryOutcome::GivenUp(error) = &outcome {
        crate::metrics::webhook_given_up();
        crate::metrics::failure(Stage::Webhook.as_str(), OwnKind::GivenUp.as_str());
        store
            .record_given_up_delivery(&delivery, attempts, error)
            .await?;
    }
    Ok(Some(outcome == DeliveryOutcome::Delivered))
}

/// The wait after the `attempts`-th failure: `first`, doubled with each further failure, at
/// most [`MAX_WEBHOOK_WAIT_SECONDS`].
pub fn backoff(first: Duration, attempts: u32) -> Duration {
    let factor = 2u32.saturating_pow(attempts.saturating_sub(1));
    first
        .saturating_mul(factor)
        .min(Duration::from_secs(MAX_WEBHOOK_WAIT_SECONDS))
}

/// Builds the body and posts it: the inner error says why the receiver did not take it.
async fn send(
    store: &Store,
    fetcher: &Fetcher,
    webhook: &WebhookConfig,
    delivery: &DueDelivery,
) -> Result<Result<(), String>, StoreError> {
    let Some(record) = store.article_record(delivery.article_id).await? else {
        return Ok(Err("the article is no longer stored".to_string()));
    };
    let body = match serde_json::to_vec(&record) {
        Ok(body) => body,
        Err(error) => return Ok(Err(format!("cannot write the article as JSON: {error}"))),
    };
    let headers = delivery_headers(webhook, delivery, &body);
    Ok(fetcher
        .post_json(&webhook.url, headers, body)
        .await
        .map(drop)
        .map_err(|error| error.to_string()))
}

fn delivery_headers(webhook: &WebhookConfig, delivery: &DueDelivery, body: &[u8]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    let mut put = |name: &'static str, value: String| {
        // Every value here is ASCII (an event name, digits, hex): always a valid header.
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    };
    put(
        EVENT_HEADER,
        WebhookEvent::ArticleCreated.as_str().to_string(),
    );
    put(
        DELIVERY_HEADER,
        delivery_id(delivery.article_id, &delivery.webhook_key),
    );
    if let Some(secret) = &webhook.secret {
        put(SIGNATURE_HEADER, signature(secret, body));
    }
    headers
}

/// The background task of `gleaner run`: a pass every second, with the webhooks and client
/// of the running configuration, until `shutdown`.
pub async fn run_deliveries(
    store: Store,
    targets: watch::Receiver<Targets>,
    shutdown: CancellationToken,
) {
    let mut tick = tokio::time::interval(PASS_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        let current = targets.borrow().clone();
        if current.webhooks.is_empty() {
            continue;
        }
        // A pass cut short by shutdown leaves its rows due again after their hold.
        let pass = tokio::select! {
            _ = shutdown.cancelled() => return,
            pass = deliver_due(&store, &current) => pass,
        };
        if let Err(error) = pass {
            tracing::warn!(%error, "webhook deliveries: cannot read or record the queue; retrying");
        }
    }
}

/// `poll --once`: passes until nothing is pending or `wait` is over (an attempt cut short is
/// due again after its hold; retries due later are left to the next run). Returns the
/// deliveries still pending.
pub async fn deliver_pending(
    store: &Store,
    targets: &Targets,
    wait: Duration,
) -> Result<i64, StoreError> {
    if targets.webhooks.is_empty() {
        return Ok(0);
    }
    let deadline = tokio::time::Instant::now() + wait;
    let passes = async {
        loop {
            deliver_due(store, targets).await?;
            let Some(next) = store.next_delivery_due().await? else {
                return Ok::<(), StoreError>(());
            };
            let until_next = (next - now()).to_std().unwrap_or(Duration::ZERO);
            let wake = tokio::time::Instant::now() + until_next.max(Duration::from_millis(20));
            if wake > deadline {
                return Ok(());
            }
            tokio::time::sleep_until(wake).await;
        }
    };
    if let Ok(passed) = tokio::time::timeout_at(deadline, passes).await {
        passed?;
    }
    store.pending_deliveries().await
}

/// What `gleaner webhooks redeliver` did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Redelivered {
    /// Given-up deliveries put back in the queue.
    pub requeued: usize,
    /// Of those, delivered now.
    pub delivered: usize,
    /// Of those, given up again (a new failure row each).
    pub given_up: usize,
    /// Of those, still pending when `wait` was over (sent by the next `run` or `poll`).
    pub pending: usize,
    /// Given-up deliveries left alone: their webhook is no longer configured, or their
    /// article or webhook is no longer stored.
    pub skipped: usize,
}

/// Whether `name` names `webhook`: its key (as failure rows and delivery ids name it) or
/// its URL.
fn names(webhook: &WebhookConfig, name: &str) -> bool {
    webhook.key() == name || webhook.url.as_str() == name || webhook.display_url() == name
}

/// `gleaner webhooks redeliver`: puts the deliveries given up since `since` (of the webhook
/// `webhook` names, else of every configured one) back in the queue, attempts counted anew,
/// and sends them as `poll --once` does, for at most `wait`. A delivery that succeeds loses
/// its failure row; one given up again gets a new one.
pub async fn redeliver(
    store: &Store,
    targets: &Targets,
    webhook: Option<&str>,
    since: Option<chrono::DateTime<chrono::Utc>>,
    wait: Duration,
) -> Result<Redelivered, StoreError> {
    let mut done = Redelivered::default();
    let mut requeued: Vec<GivenUpDelivery> = Vec::new();
    for given_up in store.given_up_deliveries(since).await? {
        let Some(target) = targets.by_key(&given_up.webhook_key) else {
            if webhook.is_none() {
                done.skipped += 1;
            }
            continue;
        };
        if webhook.is_some_and(|name| !names(target, name)) {
            continue;
        }
        if store.requeue_given_up(&given_up).await? {
            requeued.push(given_up);
        } else {
            done.skipped += 1;
        }
    }
    done.requeued = requeued.len();
    if requeued.is_empty() {
        return Ok(done);
    }
    deliver_pending(store, targets, wait).await?;
    let states = store.deliveries().await?;
    for given_up in &requeued {
        let state = states.iter().find(|record| {
            record.article_id == given_up.article_id && record.webhook_key == given_up.webhook_key
        });
        let state = state.map(|record| record.state.as_str());
        if state == Some(DeliveryState::Delivered.as_str()) {
            done.delivered += 1;
        } else if state == Some(DeliveryState::Failed.as_str()) {
            done.given_up += 1;
        } else {
            done.pending += 1;
        }
    }
    Ok(done)
}

/// Whether some configured webhook is named `name` (its key or URL).
pub fn is_configured(targets: &Targets, name: &str) -> bool {
    targets.webhooks.iter().any(|webhook| names(webhook, name))
}
