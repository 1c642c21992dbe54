//! The unauthenticated operator routes: `/healthz` and Prometheus `/metrics`.
//!
//! `/healthz` answers 503 only when the database does not answer: a liveness probe that
//! restarts nothing a restart would not fix. A service that runs but falls short (feeds
//! overdue, a kind of write failing) answers 200 with `"status": "degraded"` and names what;
//! alert on that, or on the matching gauges of `/metrics`.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::ApiState;
use crate::metrics::{self, Exposition};
use crate::store::claims::QueueDepth;
use crate::store::{FailingWrite, OVERDUE_FIRINGS, OverdueFeed, StoreCounts, now};

/// A per-consumer gauge: name, help, and the value it shows.
type QueueGauge = (&'static str, &'static str, fn(&QueueDepth) -> i64);

/// How far back `/healthz` counts given-up webhook deliveries.
const GIVEN_UP_WINDOW: chrono::TimeDelta = chrono::TimeDelta::hours(24);

/// How long a health check or a scrape waits for the database.
const DATABASE_WAIT: Duration = Duration::from_secs(5);

/// `GET /healthz`: 200 when the database answers, 503 otherwise; the body says `ok`, or
/// `degraded` with the overdue feeds and the failing kinds of write.
pub async fn healthz(State(state): State<ApiState>) -> Response {
    let read = async {
        state.store.ping().await?;
        let overdue = state.store.overdue_feeds(now()).await?;
        let given_up = state
            .store
            .given_up_deliveries_since(now() - GIVEN_UP_WINDOW)
            .await?;
        Ok::<_, crate::store::StoreError>((overdue, given_up))
    };
    match tokio::time::timeout(DATABASE_WAIT, read).await {
        Ok(Ok((overdue, given_up))) => {
            Json(health(&overdue, &state.store.failing_writes(), given_up)).into_response()
        }
        Ok(Err(error)) => {
            tracing::warn!(error = %error, "health check: the database does not answer");
            unavailable()
        }
        Err(_) => {
            tracing::warn!("health check: the database did not answer in time");
            unavailable()
        }
    }
}

/// The body of a `/healthz` whose database answered; `given_up`: the webhook deliveries given
/// up in the last [`GIVEN_UP_WINDOW`] (reported, not a degradation of the service itself).
fn health(overdue: &[OverdueFeed], failing: &[FailingWrite], given_up: i64) -> serde_json::Value {
    let status = if overdue.is_empty() && failing.is_empty() {
        "ok"
    } else {
        "degraded"
    };
    json!({
        "status": status,
        "overdue_feeds": overdue,
        "failing_writes": failing,
        "webhook_deliveries_given_up_24h": given_up,
    })
}

fn unavailable() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({ "error": "the database is unreachable" })),
    )
        .into_response()
}

/// `GET /metrics`: the process counters, then gauges read from the database now. When the
/// database does not answer, `gleaner_database_up` is 0 and its gauges are left out.
pub async fn metrics(State(state): State<ApiState>) -> Response {
    let mut out = metrics::render();
    let read = read_gauges(&state).await;
    out.gauge(
        "gleaner_database_up",
        "Whether the database answered this scrape (1) or not (0).",
        if read.is_some() { 1.0 } else { 0.0 },
    );
    out.gauge(
        "gleaner_store_writes_failing",
        "Kinds of database write whose last attempt failed (/healthz names them).",
        state.store.failing_writes().len() as f64,
    );
    out.family(
        "gleaner_store_connections_discarded_total",
        "counter",
        "Database connections closed because they were given back inside a transaction.",
    );
    out.sample(
        "gleaner_store_connections_discarded_total",
        &[],
        state.store.discarded_connections() as f64,
    );
    if let Some(read) = read {
        write_database_gauges(&mut out, read);
    }
    (
        [(header::CONTENT_TYPE, metrics::CONTENT_TYPE)],
        out.finish(),
    )
        .into_response()
}

/// What `/metrics` reads from the database: the counts, each consumer's queue, the overdue
/// feeds.
type DatabaseGauges = (StoreCounts, Vec<QueueDepth>, usize);

/// The database's gauges, or `None` (logged) when it fails or does not answer in time.
async fn read_gauges(state: &ApiState) -> Option<DatabaseGauges> {
    let read = async {
        let counts = state.store.counts().await?;
        let queues = state.store.queue_depths().await?;
        let overdue = state.store.overdue_feeds(now()).await?;
        Ok::<_, crate::store::StoreError>((counts, queues, overdue.len()))
    };
    match tokio::time::timeout(DATABASE_WAIT, read).await {
        Ok(Ok(read)) => Some(read),
        Ok(Err(error)) => {
            tracing::warn!(error = %error, "metrics: cannot read the database");
            None
        }
        Err(_) => {
            tracing::warn!("metrics: the database did not answer in time");
            None
        }
    }
}

/// The gauges read from the database, after the process's own.
fn write_database_gauges(out: &mut Exposition, (counts, queues, overdue): DatabaseGauges) {
    out.gauge(
        "gleaner_articles",
        "Articles stored in the database.",
        counts.articles as f64,
    );
    out.family("gleaner_feeds", "gauge", "Feeds in the database, by state.");
    out.sample(
        "gleaner_feeds",
        &[("state", "active")],
        counts.feeds_active as f64,
    );
    out.sample(
        "gleaner_feeds",
        &[("state", "inactive")],
        counts.feeds_inactive as f64,
    );
    out.gauge(
        "gleaner_feeds_failing",
        "Active feeds whose last poll failed.",
        counts.feeds_failing as f64,
    );
    out.gauge(
        "gleaner_feeds_overdue",
        &format!(
            "Active feeds nobody has polled for {OVERDUE_FIRINGS} firings of their schedule \
             since they were due (/healthz names them)."
        ),
        overdue as f64,
    );
    let families: [QueueGauge; 3] = [
        (
            "gleaner_claims_pending",
            "Stored articles a consumer has not reported done (its queue depth), for each consumer that ever claimed.",
            |queue| queue.pending,
        ),
        (
            "gleaner_claims_leased",
            "Articles under an unexpired lease, by consumer.",
            |queue| queue.leased,
        ),
        (
            "gleaner_claims_done",
            "Articles reported done, by consumer.",
            |queue| queue.done,
        ),
    ];
    for (name, help, value) in families {
        out.family(name, "gauge", help);
        for queue in &queues {
            out.sample(name, &[("consumer", &queue.consumer)], value(queue) as f64);
        }
    }
}
