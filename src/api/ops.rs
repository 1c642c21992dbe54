//! The unauthenticated operator routes: `/healthz` and Prometheus `/metrics`.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::ApiState;
use crate::metrics;
use crate::store::claims::QueueDepth;

/// A per-consumer gauge: name, help, and the value it shows.
type QueueGauge = (&'static str, &'static str, fn(&QueueDepth) -> i64);

/// How long a health check or a scrape waits for the database.
const DATABASE_WAIT: Duration = Duration::from_secs(5);

/// `GET /healthz`: 200 when the database answers, 503 otherwise.
pub async fn healthz(State(state): State<ApiState>) -> Response {
    match tokio::time::timeout(DATABASE_WAIT, state.store.ping()).await {
        Ok(Ok(())) => Json(json!({ "status": "ok" })).into_response(),
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
    let read = async {
        let counts = state.store.counts().await?;
        let queues = state.store.queue_depths().await?;
        Ok::<_, crate::store::StoreError>((counts, queues))
    };
    let read = match tokio::time::timeout(DATABASE_WAIT, read).await {
        Ok(Ok(read)) => Some(read),
        Ok(Err(error)) => {
            tracing::warn!(error = %error, "metrics: cannot read the database");
            None
        }
        Err(_) => {
            tracing::warn!("metrics: the database did not answer in time");
            None
        }
    };
    out.gauge(
        "gleaner_database_up",
        "Whether the database answered this scrape (1) or not (0).",
        if read.is_some() { 1.0 } else { 0.0 },
    );
    if let Some((counts, queues)) = read {
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
    (
        [(header::CONTENT_TYPE, metrics::CONTENT_TYPE)],
        out.finish(),
    )
        .into_response()
}
