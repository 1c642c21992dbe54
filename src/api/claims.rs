//! The consumers' work queue over HTTP: claim articles under a lease, report them done with
//! a result, read an article's claims. The queue itself is [`crate::store::claims`].

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use chrono::{Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::ApiState;
use super::articles::{Params, parse_page_type, path_id};
use super::error::{ApiError, JsonBody, check_quality};
use crate::store::PageType;
use crate::store::claims::{ClaimFilter, ClaimRecord, FinishOutcome};

/// Articles per claim when `limit` is absent, and at most.
pub const DEFAULT_CLAIM_LIMIT: i64 = 10;
pub const MAX_CLAIM_LIMIT: i64 = 100;
/// Lease length when `lease_seconds` is absent, and at most (a day).
pub const DEFAULT_LEASE_SECONDS: i64 = 300;
pub const MAX_LEASE_SECONDS: i64 = 86_400;
/// The longest consumer name.
pub const MAX_CONSUMER_LEN: usize = 64;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimRequest {
    consumer: String,
    limit: Option<i64>,
    lease_seconds: Option<i64>,
    /// Only articles whose quality is at least this, in [0, 1] (articles stored before
    /// quality was estimated have none and pass).
    min_quality: Option<f64>,
    /// One article per near-duplicate cluster (its representative). Default false.
    #[serde(default)]
    skip_duplicates: bool,
    /// Only articles of these page types (`["forum"]`); absent: of any.
    page_types: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoneRequest {
    consumer: String,
    /// The lease token the claim returned; refused when stale.
    lease: Option<i64>,
    result: Option<serde_json::Value>,
}

/// A consumer names a queue: letters, digits, `.`, `_`, `-`, `:`.
fn check_consumer(name: &str) -> Result<&str, ApiError> {
    let valid = !name.is_empty()
        && name.len() <= MAX_CONSUMER_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':'));
    if valid {
        Ok(name)
    } else {
        Err(ApiError::bad_request(format!(
            "consumer must be 1 to {MAX_CONSUMER_LEN} letters, digits, '.', '_', '-' or ':', \
             not {name:?}"
        )))
    }
}

/// `page_types`: at least one, each a page type's name.
fn check_page_types(names: &[String]) -> Result<Vec<PageType>, ApiError> {
    if names.is_empty() {
        return Err(ApiError::bad_request(
            "page_types must name at least one page type (leave it out for every type)",
        ));
    }
    names.iter().map(|name| parse_page_type(name)).collect()
}

fn in_range(name: &str, value: Option<i64>, default: i64, max: i64) -> Result<i64, ApiError> {
    match value {
        None => Ok(default),
        Some(value) if (1..=max).contains(&value) => Ok(value),
        Some(value) => Err(ApiError::bad_request(format!(
            "{name} must be from 1 to {max}, not {value}"
        ))),
    }
}

/// `POST /claims {"consumer", "limit", "lease_seconds", "min_quality", "skip_duplicates",
/// "page_types"}`
pub async fn claim(
    State(state): State<ApiState>,
    JsonBody(request): JsonBody<ClaimRequest>,
) -> Result<Response, ApiError> {
    let consumer = check_consumer(&request.consumer)?;
    let limit = in_range("limit", request.limit, DEFAULT_CLAIM_LIMIT, MAX_CLAIM_LIMIT)?;
    let lease_seconds = in_range(
        "lease_seconds",
        request.lease_seconds,
        DEFAULT_LEASE_SECONDS,
        MAX_LEASE_SECONDS,
    )?;
    let min_quality = request
        .min_quality
        .map(|value| check_quality("min_quality", value))
        .transpose()?;
    let page_types = request
        .page_types
        .as_deref()
        .map(check_page_types)
        .transpose()?;
    let claims = state
        .store
        .claim(
            consumer,
            limit,
            Duration::seconds(lease_seconds),
            ClaimFilter {
                min_quality,
                skip_duplicates: request.skip_duplicates,
                page_types,
            },
        )
        .await?;
    tracing::debug!(consumer, claimed = claims.len(), "articles claimed");
    Ok(Json(json!({ "consumer": consumer, "claims": claims })).into_response())
}

/// `POST /claims/{article_id}/done {"consumer", "lease", "result"}`
pub async fn done(
    State(state): State<ApiState>,
    path: Result<Path<String>, PathRejection>,
    JsonBody(request): JsonBody<DoneRequest>,
) -> Result<Response, ApiError> {
    let id = path_id(path, "the article id")?;
    let consumer = check_consumer(&request.consumer)?;
    let outcome = state
        .store
        .finish_claim(consumer, id, request.lease, request.result.as_ref())
        .await?;
    match outcome {
        FinishOutcome::Done => Ok(Json(
            json!({ "article_id": id, "consumer": consumer, "done": true }),
        )
        .into_response()),
        FinishOutcome::UnknownArticle => {
            Err(ApiError::not_found(format!("no article has id {id}")))
        }
        FinishOutcome::NotClaimed => Err(ApiError::conflict(format!(
            "article {id} is not claimed by {consumer:?}"
        ))),
        FinishOutcome::AlreadyDone => Err(ApiError::conflict(format!(
            "article {id} is already done for {consumer:?}"
        ))),
        FinishOutcome::StaleLease { current } => Err(ApiError::conflict(format!(
            "lease {} of article {id} is not held: the lease expired and the article was \
             claimed again (current lease {current})",
            request.lease.unwrap_or_default()
        ))),
    }
}

/// A claim as the API shows it, with its state at the time of the request.
#[derive(Serialize)]
struct ClaimView {
    #[serde(flatten)]
    claim: ClaimRecord,
    /// `done`, `leased` or `expired`.
    state: &'static str,
}

impl From<ClaimRecord> for ClaimView {
    fn from(claim: ClaimRecord) -> Self {
        let state = match (claim.done_at, claim.lease_until) {
            (Some(_), _) => "done",
            (None, Some(until)) if until > Utc::now() => "leased",
            (None, _) => "expired",
        };
        ClaimView { claim, state }
    }
}

/// `GET /claims/{article_id}?consumer=`: each consumer's claim of the article, with results.
pub async fn of_article(
    State(state): State<ApiState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let id = path_id(path, "the article id")?;
    let params = Params::parse(query.as_deref());
    let consumer = params.get("consumer").map(check_consumer).transpose()?;
    if !state.store.article_exists(id).await? {
        return Err(ApiError::not_found(format!("no article has id {id}")));
    }
    let claims: Vec<ClaimView> = state
        .store
        .claims_of_article(id, consumer)
        .await?
        .into_iter()
        .map(ClaimView::from)
        .collect();
    Ok(Json(json!({ "article_id": id, "claims": claims })).into_response())
}
