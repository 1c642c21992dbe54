//! How the API says no: every error is JSON `{"error": "message"}` with its status code, and
//! the extractors and parsers that turn bad requests into such errors instead of axum's
//! plain-text rejections.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

use crate::store::StoreError;

/// An error answer: a status code and a message for the client.
#[derive(Debug, thiserror::Error)]
#[error("{status}: {message}")]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, message)
    }

    pub fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token (send Authorization: Bearer <token>)",
        )
    }
}

/// A database failure is logged in full and answered with a short 500.
impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match &error {
            StoreError::SearchQuery(refused) => return ApiError::bad_request(refused.to_string()),
            StoreError::SearchTimedOut { .. } => {
                tracing::warn!(error = %error, "a search ran out of time");
                return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, error.to_string());
            }
            _ => {}
        }
        tracing::error!(error = %error, "the API could not read the database");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "database error")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// A JSON request body. Unlike `axum::Json`, every rejection is an [`ApiError`]: a body over
/// the size limit is 413, a body that is not `application/json` is 415, anything that does not
/// parse or does not fit the expected shape is 400.
pub struct JsonBody<T>(pub T);

impl<T, S> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        if !is_json(request.headers()) {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "the request body must be JSON (Content-Type: application/json)",
            ));
        }
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                let status = rejection.status();
                if status == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::new(
                        status,
                        format!(
                            "the request body is larger than {} bytes",
                            super::MAX_BODY_BYTES
                        ),
                    )
                } else {
                    ApiError::new(status, format!("reading the request body: {rejection}"))
                }
            })?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|error| ApiError::bad_request(format!("invalid JSON body: {error}")))
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return false;
    };
    let Ok(value) = value.to_str() else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
        || (essence.len() > 5 && essence.to_ascii_lowercase().ends_with("+json"))
}

/// Parses an id from a path or query: a positive 64-bit integer.
pub fn parse_id(what: &str, text: &str) -> Result<i64, ApiError> {
    match text.trim().parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => Err(ApiError::bad_request(format!(
            "{what} must be a positive integer, not {text:?}"
        ))),
    }
}

/// A quality bound: a number from 0 to 1.
pub fn check_quality(name: &str, value: f64) -> Result<f64, ApiError> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(ApiError::bad_request(format!(
            "{name} must be a number from 0 to 1, not {value}"
        )))
    }
}

/// Parses an optional page size: `default` when absent, 1 to `max` otherwise.
pub fn parse_limit(text: Option<&str>, default: i64, max: i64) -> Result<i64, ApiError> {
    let Some(text) = text else {
        return Ok(default);
    };
    match text.trim().parse::<i64>() {
        Ok(limit) if (1..=max).contains(&limit) => Ok(limit),
        Ok(limit) if limit > max => Err(ApiError::bad_request(format!(
            "limit must be at most {max}, not {limit}"
        ))),
        _ => Err(ApiError::bad_request(format!(
            "limit must be an integer from 1 to {max}, not {text:?}"
        ))),
    }
}
