//! The consumers' work queue over HTTP: claim articles under a lease (of some feeds, tags,
//! page types), report them done with a result, read an article's claims and a consumer's.
//! The queue itself is [`crate::store::claims`].

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use chrono::{Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::ApiState;
use super::articles::{Params, parse_page_type, path_id};
use super::error::{ApiError, JsonBody, check_quality, parse_id, parse_limit};
use crate::store::PageType;
use crate::store::claims::{ArticleSelection, ClaimFilter, ClaimRecord, ClaimState, FinishOutcome};

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
    /// Only articles one of these feeds lists (stored feed names); absent: of any feed.
    feeds: Option<Vec<String>>,
    /// Only articles with one of these tags (any case); absent: whatever their tags.
    tags: Option<Vec<String>>,
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

/// `feeds`: at least one, each the name of a stored feed.
async fn check_feeds(state: &ApiState, names: &[String]) -> Result<Vec<String>, ApiError> {
    if names.is_empty() {
        return Err(ApiError::bad_request(
            "feeds must name at least one feed (leave it out for every feed)",
        ));
    }
    for name in names {
        if state.store.feed_by_name(name).await?.is_none() {
            return Err(ApiError::bad_request(format!(
                "feeds: no feed is named {name:?}"
            )));
        }
    }
    Ok(names.to_vec())
}

/// `tags`: at least one, in normal form (`feed::tags::normalize`), none blank.
fn check_tags(names: &[String]) -> Result<Vec<String>, ApiError> {
    let tags = crate::feed::tags::normalize(names);
    if tags.is_empty() {
        return Err(ApiError::bad_request(
            "tags must name at least one tag (leave it out for any tags)",
        ));
    }
    Ok(tags)
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

/// A claim request's filter, every list checked.
async fn claim_selection(
    state: &ApiState,
    request: &ClaimRequest,
) -> Result<ArticleSelection, ApiError> {
    let min_quality = request
        .min_quality
        .map(|value| check_quality("min_quality", value))
        .transpose()?;
    let page_types = request
        .page_types
        .as_deref()
        .map(check_page_types)
        .transpose()?;
    let feeds = match request.feeds.as_deref() {
        Some(names) => Some(check_feeds(state, names).await?),
        None => None,
    };
    let tags = request.tags.as_deref().map(check_tags).transpose()?;
    Ok(ArticleSelection {
        filter: ClaimFilter {
            min_quality,
            skip_duplicates: request.skip_duplicates,
            page_types,
        },
        feeds,
        tags,
    })
}

/// `POST /claims {"consumer", "limit", "lease_seconds", "min_quality", "skip_duplicates",
/// "page_types", "feeds", "tags"}`
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
    let selection = claim_selection(&state, &request).await?;
    let claims = state
        .store
        .claim(consumer, limit, Duration::seconds(lease_seconds), selection)
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
        let state = ClaimState::of(&claim, Utc::now()).as_str();
        ClaimView { claim, state }
    }
}

/// Claims per page of `GET /claims` when `limit` is absent, and at most.
pub const DEFAULT_LIST_LIMIT: i64 = 100;
pub const MAX_LIST_LIMIT: i64 = 1000;

/// `GET /claims?consumer=&state=leased|done|expired|all&after_id=&limit=`: one consumer's
/// claims in article order (all of them when `state` is absent), with their results; a page
/// at a time, `next_after_id` the cursor of the next.
pub async fn of_consumer(
    State(state): State<ApiState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let params = Params::parse(query.as_deref());
    let Some(consumer) = params.get("consumer") else {
        return Err(ApiError::bad_request(
            "consumer (whose claims to list) is required",
        ));
    };
    let consumer = check_consumer(consumer)?;
    let claim_state = params
        .get("state")
        .map_or(Ok(ClaimState::All), str::parse::<ClaimState>)
        .map_err(ApiError::bad_request)?;
    let limit = parse_limit(params.get("limit"), DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT)?;
    let after_id = params
        .get("after_id")
        .map(|text| parse_id("after_id", text))
        .transpose()?
        .unwrap_or(0);
    let mut claims = state
        .store
        .claims_of_consumer(consumer, claim_state, after_id, limit + 1)
        .await?;
    let more = claims.len() as i64 > limit;
    claims.truncate(usize::try_from(limit).unwrap_or(0));
    let next_after_id = claims.last().map_or(after_id, |claim| claim.article_id);
    let claims: Vec<ClaimView> = claims.into_iter().map(ClaimView::from).collect();
    Ok(Json(json!({
        "consumer": consumer,
        "state": claim_state.as_str(),
        "claims": claims,
        "next_after_id": next_after_id,
        "more": more,
    }))
    .into_response())
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
