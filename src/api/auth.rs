//! Bearer-token authentication of the API routes (all but `/healthz` and `/metrics`), and
//! the token every route reads ([`ApiToken`]), which a configuration reload replaces.
//!
//! The configured token is kept only as its SHA-256 digest; a presented token is hashed and
//! the two digests are compared in constant time, so neither the token's contents nor its
//! length show in response times. Neither token is ever logged.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, RwLock};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::attempts::{ClientAddress, FailedAttempts, retry_after};
use super::error::ApiError;
use super::ui::session::SessionKey;

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

/// The token of the running configuration, shared by the bearer check and the web view's
/// sessions: a reload that changes `[api] token` replaces it here, so the old token and every
/// session signed under it stop working at once. `None`: no authentication.
#[derive(Debug, Clone, Default)]
pub struct ApiToken {
    current: Arc<RwLock<Option<TokenKeys>>>,
}

/// What is derived from one token: its bearer check and its session key.
#[derive(Debug, Clone)]
struct TokenKeys {
    check: TokenCheck,
    session: SessionKey,
}

/// Tokens shorter than this are guessable: a warning says so.
pub const SHORT_TOKEN_CHARS: usize = 16;

impl ApiToken {
    pub fn new(token: Option<&str>) -> ApiToken {
        let handle = ApiToken::default();
        handle.replace(token);
        handle
    }

    /// Makes `token` the one every route checks from the next request on; warns when it is
    /// short.
    pub fn replace(&self, token: Option<&str>) {
        if let Some(token) = token
            && token.chars().count() < SHORT_TOKEN_CHARS
        {
            tracing::warn!(
                "[api] token is shorter than {SHORT_TOKEN_CHARS} characters: it can be guessed; \
                 use a long random one (openssl rand -hex 32)"
            );
        }
        let keys = token.map(|token| TokenKeys {
            check: TokenCheck::new(token),
            session: SessionKey::new(token),
        });
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = keys;
    }

    fn keys(&self) -> Option<TokenKeys> {
        self.current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The bearer check of the current token; `None` when no token is set.
    pub fn check(&self) -> Option<TokenCheck> {
        self.keys().map(|keys| keys.check)
    }

    /// The web view's session key under the current token; `None` when no token is set.
    pub fn session_key(&self) -> Option<SessionKey> {
        self.keys().map(|keys| keys.session)
    }
}

fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// Whether two digests are equal, in time that does not depend on where they differ.
pub(super) fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let difference = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}

/// What the bearer check reads: the current token and the clients' failures.
#[derive(Debug, Clone)]
pub struct Access {
    pub token: ApiToken,
    pub attempts: FailedAttempts,
}

/// The address a request came from (unspecified when the server did not say).
pub fn client_of(extensions: &axum::http::Extensions) -> IpAddr {
    extensions
        .get::<ClientAddress>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |client| client.0)
}

/// Middleware: 401 with a JSON error unless the request carries the current token (or none
/// is set); 429 with `Retry-After`, before the token is looked at, while its client is
/// locked out for failing too often ([`FailedAttempts`]).
pub async fn require_token(State(access): State<Access>, request: Request, next: Next) -> Response {
    let Some(check) = access.token.check() else {
        return next.run(request).await;
    };
    let client = client_of(request.extensions());
    if let Some(wait) = access.attempts.locked_out(client) {
        return too_many_attempts(wait);
    }
    if check.allows(request.headers()) {
        access.attempts.succeeded(client);
        next.run(request).await
    } else {
        if bearer_token(request.headers()).is_some() {
            access.attempts.failed(client, "bearer token");
        }
        ApiError::unauthorized().into_response()
    }
}

/// `429` with `Retry-After`.
pub(super) fn too_many_attempts(wait: std::time::Duration) -> Response {
    let mut response = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "too many failed authentications from this address: wait before trying again",
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, retry_after(wait));
    response
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

    #[test]
    fn a_short_token_is_warned_about_and_replaced_at_once() {
        let short = crate::api::attempts::logged(|| drop(ApiToken::new(Some("s3cret"))));
        assert!(short.contains("shorter than 16"), "{short}");
        assert!(!short.contains("s3cret"), "{short}");
        let long = crate::api::attempts::logged(|| drop(ApiToken::new(Some("0123456789abcdef"))));
        assert!(long.is_empty(), "{long}");
        let token = ApiToken::new(Some("0123456789abcdef"));
        let old = with_authorization("Bearer 0123456789abcdef");
        assert!(token.check().is_some_and(|check| check.allows(&old)));
        token.replace(Some("fedcba9876543210"));
        assert!(token.check().is_some_and(|check| !check.allows(&old)));
        token.replace(None);
        assert!(token.check().is_none());
    }
}
