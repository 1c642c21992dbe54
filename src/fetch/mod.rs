//! Fetching: the one place gleaner talks HTTP.
//!
//! A [`Fetcher`] (one per daemon, cheap to clone) turns a [`FetchRequest`] — a feed, an
//! article page or an image — into bytes plus the response's validators, or a [`FetchError`]
//! whose `kind` the pipeline stores. Everything that protects gleaner and the sites it visits
//! lives here, so no other stage needs to think about it:
//!
//! - **limits** — one reqwest client (rustls; gzip, brotli and deflate; the configured user
//!   agent; at most [`MAX_REDIRECTS`] redirects, loops refused), a total timeout per request
//!   covering connect, headers and body, and a byte cap per [`ResourceKind`] on the *decoded*
//!   body, so a gzip bomb stops at the cap;
//! - **the page as sent** — a gzip-encoded page is inflated here rather than by reqwest, and
//!   its gzip bytes are kept ([`Fetched::gzip`]): the store keeps them as the raw page instead
//!   of compressing the page a second time; a large one is inflated on the blocking pool;
//! - **the SSRF guard** ([`guard`]): no connection to loopback, private, link-local or other
//!   non-public addresses unless `allow_private_networks`, checked for IP literals, DNS
//!   answers and every redirect;
//! - **politeness** ([`hosts`]): global and per-host concurrency and a minimum gap between
//!   request starts to one host;
//! - **robots.txt** ([`robots`]) for pages and images when `respect_robots_txt`;
//! - **conditional GET**: `If-None-Match` / `If-Modified-Since`, and 304 → [`FetchOutcome::NotModified`];
//! - **per-feed headers** ([`options`]): a feed's user agent, headers, cookie and basic auth
//!   ride on each request as [`RequestOptions`], credentials only to the feed's own origin.
//!
//! Over 600 lines, kept whole: one request's path (`fetch` to `read_capped`) reads top to bottom
//! here; the guard, robots, hosts, options and errors have files of their own.

pub mod error;
pub mod guard;
pub mod hosts;
pub mod options;
mod post;
pub mod robots;

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use flate2::read::GzDecoder;
use futures::StreamExt;
use reqwest::StatusCode;
use reqwest::header::{
    ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HeaderMap, HeaderValue,
    IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED, USER_AGENT,
};
use tracing::Instrument;
use tracing::field::Empty;
use url::Url;

use crate::config::FetchConfig;

pub use error::{FetchError, FetchErrorKind};
use guard::{Guard, GuardedResolver};
pub use guard::{MAX_REDIRECTS, is_forbidden};
use hosts::Politeness;
pub use options::RequestOptions;
use robots::{Robots, RobotsCache};

/// What is being fetched: decides the byte cap and whether robots.txt applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// A feed: `max_feed_bytes`; robots.txt does not apply (the operator subscribed to it).
    Feed,
    /// An article page: `max_page_bytes`; robots.txt applies.
    Page,
    /// An image: `max_image_bytes`; robots.txt applies.
    Image,
}

impl ResourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ResourceKind::Feed => "feed",
            ResourceKind::Page => "page",
            ResourceKind::Image => "image",
        }
    }

    fn obeys_robots(self) -> bool {
        !matches!(self, ResourceKind::Feed)
    }
}

/// One request: a URL, its kind, the validators of the copy we already have, and what its
/// feed adds to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchRequest {
    pub url: Url,
    pub kind: ResourceKind,
    /// Sent as `If-None-Match`.
    pub etag: Option<String>,
    /// Sent as `If-Modified-Since`.
    pub last_modified: Option<String>,
    /// The feed's user agent, headers and credentials (shared by the feed's requests).
    pub options: Arc<RequestOptions>,
}

impl FetchRequest {
    /// An unconditional request.
    pub fn new(url: Url, kind: ResourceKind) -> FetchRequest {
        FetchRequest {
            url,
            kind,
            etag: None,
            last_modified: None,
            options: Arc::default(),
        }
    }

    /// The same request with a feed's options.
    pub fn with_options(self, options: &Arc<RequestOptions>) -> FetchRequest {
        FetchRequest {
            options: Arc::clone(options),
            ..self
        }
    }
}

/// The result of a successful fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
// One outcome per request, moved once and matched at once: boxing the body's metadata would
// only add an allocation.
#[allow(clippy::large_enum_variant)]
pub enum FetchOutcome {
    /// 304: the copy we have is current.
    NotModified,
    Fetched(Fetched),
}

/// A 2xx response and its (decoded) body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The URL after redirects.
    pub final_url: Url,
    pub status: u16,
    pub content_type: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// The body, decoded.
    pub bytes: Vec<u8>,
    /// A page's body exactly as the server gzip-encoded it, when it did: it decodes to
    /// `bytes`, so it is stored as it is.
    pub gzip: Option<Vec<u8>>,
}

impl Fetched {
    /// The `charset` parameter of the `Content-Type`, as sent (unquoted).
    pub fn charset(&self) -> Option<&str> {
        charset_of(self.content_type.as_deref()?)
    }

    /// The media type of the `Content-Type`, lowercase, without parameters.
    pub fn media_type(&self) -> Option<String> {
        let content_type = self.content_type.as_deref()?;
        let media = content_type.split(';').next()?.trim();
        (!media.is_empty()).then(|| media.to_ascii_lowercase())
    }
}

/// The `charset` parameter of a `Content-Type` value, unquoted.
pub fn charset_of(content_type: &str) -> Option<&str> {
    content_type
        .split(';')
        .skip(1)
        .find_map(|parameter| {
            let (name, value) = parameter.split_once('=')?;
            name.trim()
                .eq_ignore_ascii_case("charset")
                .then(|| value.trim().trim_matches('"').trim())
        })
        .filter(|charset| !charset.is_empty())
}

/// The HTTP client with gleaner's limits. Clone it freely: clones share the connection pool,
/// the politeness state and the robots.txt cache.
#[derive(Debug, Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    client: reqwest::Client,
    guard: Arc<Guard>,
    politeness: Politeness,
    robots: RobotsCache,
    config: FetchConfig,
    /// Product tokens matched against robots.txt `User-agent` lines.
    robots_tokens: Vec<String>,
    timeout: Duration,
}

/// Builds a [`Fetcher`]; the only way to set the guard's test hooks.
#[derive(Debug, Clone)]
pub struct FetcherBuilder {
    config: FetchConfig,
    exempt: HashSet<IpAddr>,
    overrides: HashMap<String, Vec<IpAddr>>,
}

impl FetcherBuilder {
    /// Lets the guard through to exactly this address even when private networks are not
    /// allowed. Meant for tests that serve on loopback while checking the guard; nothing in
    /// the configuration sets it.
    pub fn guard_exemption(mut self, address: IpAddr) -> FetcherBuilder {
        self.exempt.insert(address);
        self
    }

    /// Makes `host` resolve to `address` instead of asking DNS. The address still passes
    /// through the guard. Meant for tests (a "public" name that resolves to loopback).
    pub fn resolve(mut self, host: &str, address: IpAddr) -> FetcherBuilder {
        self.overrides
            .entry(host.to_ascii_lowercase())
            .or_default()
            .push(address);
        self
    }

    pub fn build(self) -> Result<Fetcher, FetchError> {
        let config = self.config;
        let timeout = Duration::from_secs(config.timeout_seconds.max(1));
        let guard = Arc::new(Guard::new(config.allow_private_networks, self.exempt));
        let resolver = GuardedResolver::new(Arc::clone(&guard), self.overrides);
        let client = reqwest::Client::builder()
            .use_rustls_tls()
            .user_agent(config.user_agent.as_str())
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(guard::redirect_policy(Arc::clone(&guard)))
            .dns_resolver(Arc::new(resolver))
            .no_proxy()
            .referer(false)
            // gzip is inflated by `inflate_capped`, which keeps the encoded page.
            .gzip(false)
            .brotli(true)
            .deflate(true)
            .build()
            .map_err(|e| FetchError::Client {
                detail: e.to_string(),
            })?;
        let mut robots_tokens = vec!["gleaner".to_string()];
        let configured = robots::product_token(&config.user_agent);
        if !configured.is_empty() && !robots_tokens.contains(&configured) {
            robots_tokens.push(configured);
        }
        Ok(Fetcher {
            inner: Arc::new(Inner {
                client,
                guard,
                politeness: Politeness::new(
                    config.concurrency,
                    config.per_host_concurrency,
                    Duration::from_millis(config.per_host_delay_ms),
                ),
                robots: RobotsCache::default(),
                robots_tokens,
                timeout,
                config,
            }),
        })
    }
}

/// What to do with a body longer than the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overflow {
    /// Stop reading and fail with `too_large`.
    Fail,
    /// Keep the first `cap` bytes (robots.txt).
    Truncate,
}

/// A response whose body (2xx only) has been read within the cap.
struct Transfer {
    final_url: Url,
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
    /// The body as sent, when it was gzip-encoded.
    gzip: Option<Vec<u8>>,
}

impl Fetcher {
    /// A fetcher with the configured limits.
    pub fn new(config: &FetchConfig) -> Result<Fetcher, FetchError> {
        Fetcher::builder(config).build()
    }

    /// A builder, for the guard's test hooks.
    pub fn builder(config: &FetchConfig) -> FetcherBuilder {
        FetcherBuilder {
            config: config.clone(),
            exempt: HashSet::new(),
            overrides: HashMap::new(),
        }
    }

    /// How many hosts the politeness table tracks now (idle ones are forgotten).
    pub fn tracked_hosts(&self) -> usize {
        self.inner.politeness.tracked_hosts()
    }

    /// Fetches one resource within every limit.
    pub async fn fetch(&self, request: &FetchRequest) -> Result<FetchOutcome, FetchError> {
        let span = tracing::info_span!(
            "fetch",
            url = %request.url,
            kind = request.kind.as_str(),
            status = Empty,
            bytes = Empty,
            elapsed_ms = Empty,
        );
        let started = std::time::Instant::now();
        let result = self.fetch_checked(request).instrument(span.clone()).await;
        let _entered = span.enter();
        span.record("elapsed_ms", started.elapsed().as_millis() as u64);
        match &result {
            Ok(FetchOutcome::Fetched(fetched)) => {
                span.record("status", fetched.status);
                span.record("bytes", fetched.bytes.len() as u64);
                tracing::debug!("fetched");
            }
            Ok(FetchOutcome::NotModified) => {
                span.record("status", 304u16);
                tracing::debug!("not modified");
            }
            Err(error) => {
                if let Some(status) = error.status() {
                    span.record("status", status);
                }
                tracing::debug!(kind = %error.kind(), error = %error, "fetch failed");
            }
        }
        result
    }

    /// What every request's address must pass before anything is sent: an http(s) scheme,
    /// a host, and the SSRF guard.
    fn check_target(&self, url: &Url) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Scheme { url: url.clone() });
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(FetchError::InvalidUrl {
                url: url.clone(),
                reason: "the URL has no host",
            });
        }
        self.inner
            .guard
            .check_url(url)
            .map_err(|refused| FetchError::RefusedAddress {
                url: url.clone(),
                detail: refused.to_string(),
            })
    }

    async fn fetch_checked(&self, request: &FetchRequest) -> Result<FetchOutcome, FetchError> {
        let url = &request.url;
        self.check_target(url)?;
        if self.inner.config.respect_robots_txt
            && request.kind.obeys_robots()
            && !self.robots_allow(url, &request.options).await
        {
            return Err(FetchError::Robots { url: url.clone() });
        }

        let mut headers = request.options.headers_for(url);
        let validators = [
            (IF_NONE_MATCH, &request.etag),
            (IF_MODIFIED_SINCE, &request.last_modified),
        ];
        for (name, value) in validators {
            let Some(value) = value.as_deref() else {
                continue;
            };
            match HeaderValue::from_str(value) {
                Ok(value) => {
                    headers.insert(name, value);
                }
                Err(_) => {
                    tracing::debug!(header = %name, "dropped a validator that is not a valid header value")
                }
            }
        }

        let transfer = self
            .transfer(url, headers, self.cap(request.kind), Overflow::Fail)
            .await?;
        if transfer.status == StatusCode::NOT_MODIFIED {
            return Ok(FetchOutcome::NotModified);
        }
        if !transfer.status.is_success() {
            let retry_after = match transfer.status {
                StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => {
                    error::parse_retry_after(&transfer.headers, SystemTime::now())
                }
                _ => None,
            };
            return Err(FetchError::HttpStatus {
                url: url.clone(),
                status: transfer.status.as_u16(),
                retry_after,
            });
        }
        let header = |name| {
            transfer
                .headers
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .map(str::to_string)
        };
        Ok(FetchOutcome::Fetched(Fetched {
            content_type: header(CONTENT_TYPE),
            etag: header(ETAG),
            last_modified: header(LAST_MODIFIED),
            final_url: transfer.final_url,
            status: transfer.status.as_u16(),
            bytes: transfer.body,
            // Only a page's raw bytes are stored; a feed's or an image's encoded copy is dropped.
            gzip: transfer.gzip.filter(|_| request.kind == ResourceKind::Page),
        }))
    }

    fn cap(&self, kind: ResourceKind) -> u64 {
        let config = &self.inner.config;
        match kind {
            ResourceKind::Feed => config.max_feed_bytes,
            ResourceKind::Page => config.max_page_bytes,
            ResourceKind::Image => config.max_image_bytes,
        }
    }

    /// Waits for politeness, then sends and reads within the total timeout.
    async fn transfer(
        &self,
        url: &Url,
        headers: HeaderMap,
        cap: u64,
        overflow: Overflow,
    ) -> Result<Transfer, FetchError> {
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let _permit =
            self.inner
                .politeness
                .acquire(&host)
                .await
                .ok_or_else(|| FetchError::Client {
                    detail: "the fetcher's request slots were closed".to_string(),
                })?;
        let timeout = self.inner.timeout;
        match tokio::time::timeout(timeout, self.exchange(url, headers, cap, overflow)).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout {
                url: url.clone(),
                after: timeout,
            }),
        }
    }

    async fn exchange(
        &self,
        url: &Url,
        mut headers: HeaderMap,
        cap: u64,
        overflow: Overflow,
    ) -> Result<Transfer, FetchError> {
        // What reqwest would send with gzip on; gzip stays encoded on the way in.
        headers
            .entry(ACCEPT_ENCODING)
            .or_insert(HeaderValue::from_static("gzip, br, deflate"));
        let timeout = self.inner.timeout;
        let response = self
            .inner
            .client
            .get(url.clone())
            .headers(headers)
            .send()
            .await
            .map_err(|e| FetchError::from_reqwest(url, e, timeout))?;
        let status = response.status();
        let final_url = response.url().clone();
        let headers = response.headers().clone();
        let (body, gzip) = if !status.is_success() {
            (Vec::new(), None)
        } else if is_gzip(&headers) {
            let gzip = read_capped(url, response, gzip_cap(cap), overflow, timeout).await?;
            let (body, gzip) = inflate_off_runtime(url, gzip, cap, overflow).await;
            (body?, Some(gzip))
        } else {
            (
                read_capped(url, response, cap, overflow, timeout).await?,
                None,
            )
        };
        Ok(Transfer {
            final_url,
            status,
            headers,
            body,
            gzip,
        })
    }

    /// Whether robots.txt lets gleaner fetch `url` (fetching it when not cached). A feed with
    /// its own user agent is also bound by the group for that agent's product token: its
    /// robots.txt is fetched with that agent and cached apart, since a site may answer agents
    /// differently.
    async fn robots_allow(&self, url: &Url, options: &RequestOptions) -> bool {
        let origin = url.origin().ascii_serialization();
        let agent = options.user_agent();
        let token = agent
            .and_then(|agent| agent.to_str().ok())
            .map(robots::product_token)
            .filter(|token| !token.is_empty() && !self.inner.robots_tokens.contains(token));
        let key = match &token {
            Some(token) => format!("{origin} {token}"),
            None => origin,
        };
        let robots = self
            .inner
            .robots
            .get_or_fetch(&key, || self.fetch_robots(url, agent, token))
            .await;
        let mut path = url.path().to_string();
        if let Some(query) = url.query() {
            path.push('?');
            path.push_str(query);
        }
        robots.is_allowed(&path)
    }

    async fn fetch_robots(
        &self,
        url: &Url,
        agent: Option<&HeaderValue>,
        token: Option<String>,
    ) -> (Robots, Duration) {
        let Ok(robots_url) = url.join("/robots.txt") else {
            return (Robots::allow_all(), robots::ERROR_TTL);
        };
        let mut headers = HeaderMap::new();
        if let Some(agent) = agent {
            headers.insert(USER_AGENT, agent.clone());
        }
        let mut tokens = self.inner.robots_tokens.clone();
        tokens.extend(token);
        let span = tracing::debug_span!("robots", url = %robots_url, status = Empty);
        let result = self
            .transfer(&robots_url, headers, robots::MAX_BYTES, Overflow::Truncate)
            .instrument(span.clone())
            .await;
        let _entered = span.enter();
        match result {
            Ok(transfer) if transfer.status.is_success() => {
                span.record("status", transfer.status.as_u16());
                let text = String::from_utf8_lossy(&transfer.body);
                (Robots::parse(&text, &tokens), robots::TTL)
            }
            Ok(transfer) if transfer.status.is_client_error() => {
                span.record("status", transfer.status.as_u16());
                tracing::debug!("no robots.txt: everything allowed");
                (Robots::allow_all(), robots::TTL)
            }
            Ok(transfer) => {
                span.record("status", transfer.status.as_u16());
                // Outside the span: the address is said once, in the message.
                tracing::warn!(
                    parent: None,
                    "{robots_url}: HTTP status {}: robots.txt unavailable, everything allowed for now",
                    transfer.status.as_u16()
                );
                (Robots::allow_all(), robots::ERROR_TTL)
            }
            Err(error) => {
                // The fetch that asked fails the same way and says so; a host that cannot
                // be reached is reported once, there.
                tracing::debug!(
                    parent: None,
                    kind = %error.kind(),
                    "{error}: robots.txt unreachable, everything allowed for now"
                );
                (Robots::allow_all(), robots::ERROR_TTL)
            }
        }
    }
}

/// Whether the body comes gzip-encoded (and only gzip: reqwest decodes the other encodings).
fn is_gzip(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let v = v.trim();
            v.eq_ignore_ascii_case("gzip") || v.eq_ignore_ascii_case("x-gzip")
        })
}

/// The most gzip bytes a body within `cap` can take: gzip adds a header, a trailer and 5
/// bytes per 16 KiB stored block to data it cannot compress.
fn gzip_cap(cap: u64) -> u64 {
    cap.saturating_add(cap / 1024).saturating_add(64)
}

/// Inflates a gzip body, refusing (or truncating at) more than `cap` decoded bytes: a bomb
/// is inflated no further than the cap. Like browsers, bytes after the gzip member are
/// ignored, and the stored copy is read back the same way.
fn inflate_capped(
    url: &Url,
    gzip: &[u8],
    cap: u64,
    overflow: Overflow,
) -> Result<Vec<u8>, FetchError> {
    let hint = gzip.len().saturating_mul(4);
    let mut body = Vec::with_capacity(hint.min(usize::try_from(cap).unwrap_or(usize::MAX)));
    let inflated = GzDecoder::new(gzip)
        .take(cap.saturating_add(1))
        .read_to_end(&mut body);
    match inflated {
        Ok(_) => {}
        // A body truncated at its cap ends mid-stream: what was inflated is kept.
        Err(e)
            if overflow == Overflow::Truncate && e.kind() == std::io::ErrorKind::UnexpectedEof => {}
        Err(e) => {
            return Err(FetchError::Decode {
                url: url.clone(),
                detail: format!("gzip: {e}"),
            });
        }
    }
    if body.len() as u64 > cap {
        match overflow {
            Overflow::Fail => {
                return Err(FetchError::TooLarge {
                    url: url.clone(),
                    limit: cap,
                    declared: None,
                });
            }
            Overflow::Truncate => body.truncate(usize::try_from(cap).unwrap_or(usize::MAX)),
        }
    }
    body.shrink_to_fit();
    Ok(body)
}

/// Gzip bodies up to this size are inflated where they arrive (a typical page: well under a
/// millisecond); larger ones on the blocking pool, so that a page of many megabytes does
/// not hold up the runtime's other requests.
const INLINE_INFLATE_BYTES: usize = 256 * 1024;

/// [`inflate_capped`], on the blocking pool for a large body; the gzip bytes come back.
async fn inflate_off_runtime(
    url: &Url,
    gzip: Vec<u8>,
    cap: u64,
    overflow: Overflow,
) -> (Result<Vec<u8>, FetchError>, Vec<u8>) {
    if gzip.len() <= INLINE_INFLATE_BYTES {
        return (inflate_capped(url, &gzip, cap, overflow), gzip);
    }
    let owned_url = url.clone();
    let joined = tokio::task::spawn_blocking(move || {
        let body = inflate_capped(&owned_url, &gzip, cap, overflow);
        (body, gzip)
    })
    .await;
    joined.unwrap_or_else(|e| {
        let error = FetchError::Decode {
            url: url.clone(),
            detail: format!("gzip: {e}"),
        };
        (Err(error), Vec::new())
    })
}

/// Reads a body as it arrives, refusing (or truncating at) `cap` bytes without reading further.
async fn read_capped(
    url: &Url,
    response: reqwest::Response,
    cap: u64,
    overflow: Overflow,
    timeout: Duration,
) -> Result<Vec<u8>, FetchError> {
    let too_large = |declared| FetchError::TooLarge {
        url: url.clone(),
        limit: cap,
        declared,
    };
    // The length as sent: reqwest drops it for an encoding it decodes.
    let declared = response.content_length();
    if let Some(length) = declared.filter(|&length| length > cap)
        && overflow == Overflow::Fail
    {
        return Err(too_large(Some(length)));
    }
    let capacity = declared.unwrap_or(0).min(cap).min(1 << 20);
    let mut body = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| FetchError::from_reqwest(url, e, timeout))?;
        let room = usize::try_from(cap.saturating_sub(body.len() as u64)).unwrap_or(usize::MAX);
        if chunk.len() > room {
            match overflow {
                Overflow::Fail => return Err(too_large(None)),
                Overflow::Truncate => {
                    body.extend_from_slice(&chunk[..room]);
                    break;
                }
            }
        }
        body.extend_from_slice(&chunk);
    }
    // A body grown by doubling holds up to as much again in spare room, and it is held
    // while the page waits for extraction: give the room back.
    body.shrink_to_fit();
    Ok(body)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
        encoder.write_all(data).expect("gzip in memory");
        encoder.finish().expect("gzip in memory")
    }

    fn url() -> Url {
        Url::parse("http://example.com/page").expect("a valid URL")
    }

    #[test]
    fn inflating_stops_at_the_cap() {
        let bomb = gzip(&[b'a'; 10_000]);
        let error = inflate_capped(&url(), &bomb, 1_000, Overflow::Fail).expect_err("too large");
        assert_eq!(error.kind(), FetchErrorKind::TooLarge);
        let kept = inflate_capped(&url(), &bomb, 1_000, Overflow::Truncate).expect("truncated");
        assert_eq!(kept, vec![b'a'; 1_000]);
        // Cut off mid-stream (a truncated download): what was inflated is kept.
        let cut = &bomb[..bomb.len() - 12];
        let kept = inflate_capped(&url(), cut, 20_000, Overflow::Truncate).expect("what came");
        assert!(kept.len() <= 10_000 && kept.iter().all(|&b| b == b'a'));
        let error = inflate_capped(&url(), cut, 20_000, Overflow::Fail).expect_err("cut off");
        assert_eq!(error.kind(), FetchErrorKind::Decode);
    }

    #[tokio::test]
    async fn a_large_body_is_inflated_off_the_runtime_like_a_small_one() {
        // Incompressible (xorshift bytes), so it stays over the inline size once compressed.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let page: Vec<u8> = (0..2_000_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let sent = gzip(&page);
        assert!(sent.len() > INLINE_INFLATE_BYTES);
        let (body, kept) =
            inflate_off_runtime(&url(), sent.clone(), 4_000_000, Overflow::Fail).await;
        assert_eq!((body.expect("inflated"), kept), (page, sent.clone()));
        let (body, _) = inflate_off_runtime(&url(), sent, 1_000_000, Overflow::Fail).await;
        assert_eq!(
            body.expect_err("over the cap").kind(),
            FetchErrorKind::TooLarge
        );
    }

    #[test]
    fn bytes_after_the_gzip_member_are_ignored() {
        let mut sent = gzip(b"<p>the page</p>");
        sent.extend_from_slice(b"\r\n\r\n");
        let body = inflate_capped(&url(), &sent, 1_000, Overflow::Fail).expect("inflated");
        assert_eq!(body, b"<p>the page</p>");
        // The stored copy reads back the same way.
        let stored =
            crate::store::CompressedPage::from_stored(crate::store::PageEncoding::Gzip, sent);
        assert_eq!(stored.decompress().expect("stored gzip"), body);
    }

    #[test]
    fn only_gzip_is_left_encoded() {
        let encoded = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(CONTENT_ENCODING, HeaderValue::from_static(value));
            is_gzip(&headers)
        };
        assert!(encoded("gzip") && encoded("x-gzip") && encoded(" GZIP "));
        assert!(!encoded("br") && !encoded("deflate") && !encoded("gzip, br"));
        assert!(!is_gzip(&HeaderMap::new()));
    }
}
