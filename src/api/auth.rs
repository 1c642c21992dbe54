//! Bearer-token authentication of the API routes (all but `/healthz` and `/metrics`).
//!
//! The configured token is kept only as its SHA-256 digest; a presented token is hashed and
//! the two digests are compared in constant time, so neither the token's contents nor its
//! length show in response times. Neither token is ever logged.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::error::ApiError;

/// The expected token, as a digest. `Debug` shows nothing of it.
#[derive(Clone)]
pub struct TokenCheck {
    digest: Arc<[u8; 32]>,
}

impl std::fmt::Debug for TokenCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenCheck(<redacted>)")
    }
}

impl TokenCheck {
    pub fn new(token: &str) -> Self {
        TokenCheck {
            digest: Arc::new(Sha256::digest(token.as_bytes()).into()),
        }
    }

    /// Whether the request carries `Authorization: Bearer <the token>`.
    pub fn allows(&self, headers: &HeaderMap) -> bool {
        let Some(presented) = bearer_token(headers) else {
            return false;
        };
        let presented: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        constant_time_eq(&presented, &self.digest)
    }
}

fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let difference = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}

/// Middleware: 401 with a JSON error unless the request carries the token.
pub async fn require_token(
    State(check): State<TokenCheck>,
    request: Request,
    next: Next,
) -> Response {
    if check.allows(request.headers()) {
        next.run(request).await
    } else {
        ApiError::unauthorized().into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with_authorization(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(header::AUTHORIZATION, value);
        }
        headers
    }

    #[test]
    fn only_the_exact_bearer_token_passes() {
        let check = TokenCheck::new("s3cret");
        assert!(check.allows(&with_authorization("Bearer s3cret")));
        assert!(check.allows(&with_authorization("bearer s3cret")));
        assert!(!check.allows(&with_authorization("Bearer s3cre")));
        assert!(!check.allows(&with_authorization("Bearer s3cret2")));
        assert!(!check.allows(&with_authorization("Basic s3cret")));
        assert!(!check.allows(&with_authorization("s3cret")));
        assert!(!check.allows(&HeaderMap::new()));
        assert_eq!(format!("{check:?}"), "TokenCheck(<redacted>)");
    }
}
