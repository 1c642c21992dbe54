//! [`FetchError`]: every way a fetch fails, as the pipeline stores it (a short `kind`, a
//! message that names the URL) and schedules it (transient or not, `Retry-After`).
//!
//! reqwest reports the guard's and the redirect policy's refusals as opaque sources of its own
//! error; `FetchError::from_reqwest` walks the source chain to give them their own kinds.

use std::error::Error as StdError;
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};
use url::Url;

use super::guard::{RedirectStop, Refused};

/// A failed fetch. `Display` is one line that names the URL.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("cannot fetch {url}: only http and https URLs are fetched")]
    Scheme { url: Url },
    #[error("cannot fetch {url}: {reason}")]
    InvalidUrl { url: Url, reason: &'static str },
    #[error("fetching {url}: HTTP status {status}{}", retry_detail(*retry_after))]
    HttpStatus {
        url: Url,
        status: u16,
        /// From `Retry-After` on 429 and 503 responses.
        retry_after: Option<Duration>,
    },
    #[error("fetching {url}: timed out after {after:?}")]
    Timeout { url: Url, after: Duration },
    #[error("fetching {url}: {}", too_large_detail(*limit, *declared))]
    TooLarge {
        url: Url,
        limit: u64,
        /// The `Content-Length` when that alone refused the response (the body was not read).
        declared: Option<u64>,
    },
    #[error("fetching {url}: {detail}")]
    Redirects { url: Url, detail: String },
    #[error("fetching {url}: refused: {detail}")]
    RefusedAddress { url: Url, detail: String },
    #[error("fetching {url}: disallowed by robots.txt")]
    Robots { url: Url },
    #[error("fetching {url}: network error: {detail}")]
    Network { url: Url, detail: String },
    #[error("fetching {url}: cannot decode the response body: {detail}")]
    Decode { url: Url, detail: String },
    #[error("cannot build the HTTP client: {detail}")]
    Client { detail: String },
}

fn retry_detail(retry_after: Option<Duration>) -> String {
    retry_after
        .map(|wait| format!(" (retry after {} s)", wait.as_secs()))
        .unwrap_or_default()
}

fn too_large_detail(limit: u64, declared: Option<u64>) -> String {
    match declared {
        Some(length) => format!("Content-Length {length} exceeds the limit of {limit} bytes"),
        None => format!("body exceeds the limit of {limit} bytes"),
    }
}

/// What kind of failure a [`FetchError`] is: one word each in the failures table, the logs
/// and the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FetchErrorKind {
    Scheme,
    InvalidUrl,
    HttpStatus,
    Timeout,
    TooLarge,
    Redirects,
    RefusedAddress,
    Robots,
    Network,
    Decode,
    Client,
}

impl FetchErrorKind {
    /// The word stored in the failures table.
    pub fn as_str(self) -> &'static str {
        match self {
            FetchErrorKind::Scheme => "scheme",
            FetchErrorKind::InvalidUrl => "invalid_url",
            FetchErrorKind::HttpStatus => "http_status",
            FetchErrorKind::Timeout => "timeout",
            FetchErrorKind::TooLarge => "too_large",
            FetchErrorKind::Redirects => "redirects",
            FetchErrorKind::RefusedAddress => "refused_address",
            FetchErrorKind::Robots => "robots",
            FetchErrorKind::Network => "network",
            FetchErrorKind::Decode => "decode",
            FetchErrorKind::Client => "client",
        }
    }
}

impl std::fmt::Display for FetchErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FetchError {
    /// What kind of failure this is.
    pub fn kind(&self) -> FetchErrorKind {
        match self {
            FetchError::Scheme { .. } => FetchErrorKind::Scheme,
            FetchError::InvalidUrl { .. } => FetchErrorKind::InvalidUrl,
            FetchError::HttpStatus { .. } => FetchErrorKind::HttpStatus,
            FetchError::Timeout { .. } => FetchErrorKind::Timeout,
            FetchError::TooLarge { .. } => FetchErrorKind::TooLarge,
            FetchError::Redirects { .. } => FetchErrorKind::Redirects,
            FetchError::RefusedAddress { .. } => FetchErrorKind::RefusedAddress,
            FetchError::Robots { .. } => FetchErrorKind::Robots,
            FetchError::Network { .. } => FetchErrorKind::Network,
            FetchError::Decode { .. } => FetchErrorKind::Decode,
            FetchError::Client { .. } => FetchErrorKind::Client,
        }
    }

    /// The HTTP status of an `http_status` error.
    pub fn status(&self) -> Option<u16> {
        match self {
            FetchError::HttpStatus { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// How long the server asked us to wait (429 and 503 with `Retry-After`).
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            FetchError::HttpStatus { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Whether trying again later may succeed: timeouts, network errors, 5xx, 408 and 429.
    /// Everything else (4xx, refusals, robots, size, redirects, decoding) is permanent.
    pub fn is_transient(&self) -> bool {
        match self {
            FetchError::Timeout { .. } | FetchError::Network { .. } => true,
            FetchError::HttpStatus { status, .. } => {
                *status >= 500 || *status == 429 || *status == 408
            }
            _ => false,
        }
    }

    /// Classifies a reqwest error for `url` (the URL that was requested).
    pub(crate) fn from_reqwest(url: &Url, error: reqwest::Error, timeout: Duration) -> FetchError {
        let url = url.clone();
        let mut source: Option<&(dyn StdError + 'static)> = Some(&error);
        while let Some(current) = source {
            if let Some(refused) = current.downcast_ref::<Refused>() {
                return FetchError::RefusedAddress {
                    url,
                    detail: refused.to_string(),
                };
            }
            if let Some(stop) = current.downcast_ref::<RedirectStop>() {
                return match stop {
                    RedirectStop::Refused { .. } => FetchError::RefusedAddress {
                        url,
                        detail: stop.to_string(),
                    },
                    _ => FetchError::Redirects {
                        url,
                        detail: stop.to_string(),
                    },
                };
            }
            source = current.source();
        }
        if error.is_timeout() {
            FetchError::Timeout {
                url,
                after: timeout,
            }
        } else if error.is_redirect() {
            FetchError::Redirects {
                url,
                detail: chain(&error),
            }
        } else if error.is_decode() {
            FetchError::Decode {
                url,
                detail: chain(&error),
            }
        } else {
            FetchError::Network {
                url,
                detail: chain(&error),
            }
        }
    }
}

/// An error and its sources on one line (reqwest's own message rarely says what went wrong).
fn chain(error: &dyn StdError) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(current) = source {
        let next = current.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = current.source();
    }
    text
}

/// `Retry-After` as a duration: delta-seconds, or an HTTP date (a date in the past is zero).
pub(crate) fn parse_retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn with_retry_after(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_str(value).expect("header"));
        headers
    }

    #[test]
    fn retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            parse_retry_after(&with_retry_after("120"), now),
            Some(Duration::from_secs(120))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(300));
        assert_eq!(
            parse_retry_after(&with_retry_after(&later), now),
            Some(Duration::from_secs(300))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(300));
        assert_eq!(
            parse_retry_after(&with_retry_after(&earlier), now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after(&with_retry_after("soon"), now), None);
        assert_eq!(parse_retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn transient_and_kinds() {
        let url = Url::parse("https://example.com/a").expect("url");
        let status = |status| FetchError::HttpStatus {
            url: url.clone(),
            status,
            retry_after: None,
        };
        assert!(status(500).is_transient());
        assert!(status(503).is_transient());
        assert!(status(429).is_transient());
        assert!(!status(404).is_transient());
        assert!(!status(403).is_transient());
        assert_eq!(status(404).kind(), FetchErrorKind::HttpStatus);
        let robots = FetchError::Robots { url: url.clone() };
        assert!(!robots.is_transient());
        assert!(robots.to_string().contains("https://example.com/a"));
    }
}
