//! What one request may take: its whole body, read in time before anything else; a share of
//! the database; a deadline for the whole request.
//!
//! The order is the point. A data route's body is read (at most [`MAX_BODY_BYTES`], within
//! [`ApiTimeouts::body`], else `408`) before the request waits for one of the
//! [`DATABASE_SLOTS`], so clients that stall their bodies hold no slot and cannot keep the
//! other requests from the database. Every routed request is answered within
//! [`ApiTimeouts::request`]: a handler still running then is dropped, with its query, and the
//! client gets `503` (the server is too busy, not the client too slow).
//!
//! [`ApiTimeouts::body`]: crate::config::ApiTimeouts::body
//! [`ApiTimeouts::request`]: crate::config::ApiTimeouts::request

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use tokio::sync::Semaphore;

use super::error::ApiError;
use super::{DATABASE_SLOTS, MAX_BODY_BYTES};

/// Reads the request's body whole before the rest of the route runs, within `deadline`.
pub(super) async fn read_body_first(
    State(deadline): State<Duration>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    match read_whole_body(&parts.headers, body, deadline).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        // The rest of the body may still be on its way: the connection cannot carry a
        // further request, so the answer closes it.
        Err(refusal) => closing(refusal.into_response()),
    }
}

/// The body, at most [`MAX_BODY_BYTES`] (`413` beyond: a declared length is refused before
/// reading), arrived within `deadline` (`408` otherwise).
async fn read_whole_body(
    headers: &HeaderMap,
    body: Body,
    deadline: Duration,
) -> Result<Bytes, ApiError> {
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than {MAX_BODY_BYTES} bytes"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        return Err(too_large());
    }
    let read = async {
        let mut chunks = body.into_data_stream();
        let mut whole = Vec::new();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|error| {
                ApiError::bad_request(format!("reading the request body: {error}"))
            })?;
            if whole.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(too_large());
            }
            whole.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(whole))
    };
    tokio::time::timeout(deadline, read).await.map_err(|_| {
        ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s",
                deadline.as_secs_f64()
            ),
        )
    })?
}

/// Runs the request once one of the [`DATABASE_SLOTS`] is free. A client that goes away while
/// waiting or running drops this future, and with it the slot and the query.
pub(super) async fn limit_database_use(
    State(slots): State<Arc<Semaphore>>,
    request: Request,
    next: Next,
) -> Response {
    let Ok(_slot) = slots.acquire().await else {
        return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the API is stopping")
            .into_response();
    };
    next.run(request).await
}

/// The slots of [`limit_database_use`], shared by every data route.
pub(super) fn database_slots() -> Arc<Semaphore> {
    Arc::new(Semaphore::new(DATABASE_SLOTS))
}

/// Answers `503` when the request has not been answered within `limit`.
pub(super) async fn limit_request_time(
    State(limit): State<Duration>,
    request: Request,
    next: Next,
) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_string())
        .unwrap_or_default();
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(
                route,
                limit_s = limit.as_secs_f64(),
                "an API request ran out of time"
            );
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the request was not answered within {} s; try again later",
                    limit.as_secs_f64()
                ),
            )
            .into_response()
        }
    }
}

fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
