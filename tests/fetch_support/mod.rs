//! Local HTTP servers for the fetch tests: an axum app bound to a loopback address on port 0,
//! ready as soon as `serve` returns (the listener is bound before the app is spawned), and
//! stopped when the [`Server`] is dropped.
//!
//! Every server records what it saw in a [`Stats`] that tests may share between servers (to
//! count requests in flight across hosts). Hosts are 127.0.0.1, 127.0.0.2, …: the fetcher
//! keys politeness by host without the port.

#![allow(dead_code)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::StreamExt;
use gleaner::config::FetchConfig;

pub const ETAG: &str = "\"v1\"";
pub const LAST_MODIFIED: &str = "Wed, 21 Oct 2015 07:28:00 GMT";
pub const BODY: &str = "<html><body><p>caf\u{e9}</p></body></html>";
/// The cap the test configuration sets for every kind.
pub const CAP: u64 = 1024 * 1024;

/// What `/robots.txt` answers.
#[derive(Debug, Clone)]
pub enum RobotsMode {
    Missing,
    Text(String),
    ServerError,
}

/// What a server (or several sharing it) saw.
#[derive(Debug)]
pub struct Stats {
    pub hits: AtomicUsize,
    pub robots_hits: AtomicUsize,
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    /// When `/count` and `/robots.txt` requests arrived.
    pub starts: Mutex<Vec<Instant>>,
    pub endless_bytes: AtomicUsize,
    pub robots: Mutex<RobotsMode>,
    /// `User-Agent` and `Accept-Encoding` of the last request to `/ok`.
    pub last_headers: Mutex<Option<(String, String)>>,
}

impl Stats {
    pub fn new() -> Arc<Stats> {
        Arc::new(Stats {
            hits: AtomicUsize::new(0),
            robots_hits: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            starts: Mutex::new(Vec::new()),
            endless_bytes: AtomicUsize::new(0),
            robots: Mutex::new(RobotsMode::Missing),
            last_headers: Mutex::new(None),
        })
    }

    pub fn set_robots(&self, mode: RobotsMode) {
        *self.robots.lock().expect("robots lock") = mode;
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// A running server; dropping it stops it.
pub struct Server {
    pub addr: SocketAddr,
    pub stats: Arc<Stats>,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    /// `http://IP:PORT` + `path`.
    pub fn url(&self, path: &str) -> url::Url {
        url::Url::parse(&format!("http://{}{path}", self.addr)).expect("server URL")
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves the test app on `ip`:0 with fresh stats.
pub async fn serve(ip: &str) -> Server {
    serve_with(ip, Stats::new()).await
}

/// Serves the test app on `ip`:0, recording into `stats`.
pub async fn serve_with(ip: &str, stats: Arc<Stats>) -> Server {
    let listener = tokio::net::TcpListener::bind((ip, 0))
        .await
        .expect("bind a loopback test server");
    let addr = listener.local_addr().expect("local address");
    let app = app(Arc::clone(&stats));
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Server { addr, stats, task }
}

/// The test configuration: loopback allowed, no delay, no robots, 1 MiB caps, 2 s timeout.
pub fn config() -> FetchConfig {
    FetchConfig {
        user_agent: "gleaner/0.1 (+https://example.invalid/gleaner)".to_string(),
        timeout_seconds: 2,
        max_feed_bytes: CAP,
        max_page_bytes: CAP,
        max_image_bytes: CAP,
        concurrency: 16,
        per_host_concurrency: 4,
        per_host_delay_ms: 0,
        allow_private_networks: true,
        respect_robots_txt: false,
    }
}

fn app(stats: Arc<Stats>) -> Router {
    Router::new()
        .route("/ok", get(ok))
        .route("/status/{code}", get(status))
        .route("/retry-date", get(retry_date))
        .route("/endless", get(endless))
        .route("/big", get(big))
        .route("/bomb", get(bomb))
        .route("/gzip-small", get(gzip_small))
        .route("/slow", get(slow))
        .route("/slow-body", get(slow_body))
        .route("/loop", get(|| async { redirect("/loop") }))
        .route("/loop-a", get(|| async { redirect("/loop-b") }))
        .route("/loop-b", get(|| async { redirect("/loop-a") }))
        .route("/chain/{n}", get(chain))
        .route("/redirect", get(redirect_to))
        .route("/robots.txt", get(robots))
        .route("/count", get(count))
        .fallback(get(ok))
        .with_state(stats)
}

fn hit(stats: &Stats) {
    stats.hits.fetch_add(1, Ordering::SeqCst);
}

async fn ok(State(stats): State<Arc<Stats>>, request: HeaderMap) -> Response {
    hit(&stats);
    let text = |name| {
        request
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    *stats.last_headers.lock().expect("headers lock") =
        Some((text(header::USER_AGENT), text(header::ACCEPT_ENCODING)));
    let matches = |name, value: &str| {
        request
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .is_some_and(|v| v == value)
    };
    if matches(header::IF_NONE_MATCH, ETAG) || matches(header::IF_MODIFIED_SINCE, LAST_MODIFIED) {
        return StatusCode::NOT_MODIFIED.into_response();
    }
    let latin1: Vec<u8> = BODY.chars().map(|c| c as u32 as u8).collect();
    (
        [
            (header::CONTENT_TYPE, "Text/HTML; Charset=\"ISO-8859-1\""),
            (header::ETAG, ETAG),
            (header::LAST_MODIFIED, LAST_MODIFIED),
        ],
        latin1,
    )
        .into_response()
}

async fn status(State(stats): State<Arc<Stats>>, Path(code): Path<u16>) -> Response {
    hit(&stats);
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if code == 429 || code == 503 {
        return (status, [(header::RETRY_AFTER, "120")], "later").into_response();
    }
    (status, "status").into_response()
}

async fn retry_date() -> Response {
    let when = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(300));
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, when)],
        "later",
    )
        .into_response()
}

/// 64 KiB chunks for up to 1 GiB: far more than any cap, yet a bounded loop.
async fn endless(State(stats): State<Arc<Stats>>) -> Response {
    let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
    let stream = futures::stream::iter(0..16_384).map(move |_| {
        stats.endless_bytes.fetch_add(chunk.len(), Ordering::SeqCst);
        Ok::<Bytes, Infallible>(chunk.clone())
    });
    (
        [(header::CONTENT_TYPE, "text/plain")],
        Body::from_stream(stream),
    )
        .into_response()
}

async fn big() -> Response {
    let body = vec![b'y'; 2 * CAP as usize];
    ([(header::CONTENT_TYPE, "text/plain")], body).into_response()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data).expect("gzip in memory");
    encoder.finish().expect("gzip in memory")
}

/// 16 MiB of zeros in about 16 KiB of gzip.
async fn bomb() -> Response {
    let body = gzip(&vec![0u8; 16 * CAP as usize]);
    (
        [
            (header::CONTENT_TYPE, "text/html"),
            (header::CONTENT_ENCODING, "gzip"),
        ],
        body,
    )
        .into_response()
}

async fn gzip_small() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/plain"),
            (header::CONTENT_ENCODING, "gzip"),
        ],
        gzip(b"compressed hello"),
    )
        .into_response()
}

async fn slow() -> &'static str {
    tokio::time::sleep(Duration::from_secs(4)).await;
    "late"
}

/// Headers and a first chunk at once, then a stall.
async fn slow_body() -> Response {
    let stream = futures::stream::iter(0..2).then(|i| async move {
        if i == 1 {
            tokio::time::sleep(Duration::from_secs(4)).await;
        }
        Ok::<Bytes, Infallible>(Bytes::from_static(b"part"))
    });
    Body::from_stream(stream).into_response()
}

fn redirect(to: &str) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, to.to_string())]).into_response()
}

async fn chain(Path(n): Path<u32>) -> Response {
    if n == 0 {
        return "end of chain".into_response();
    }
    redirect(&format!("/chain/{}", n - 1))
}

async fn redirect_to(Query(query): Query<HashMap<String, String>>) -> Response {
    redirect(query.get("to").map_or("/ok", String::as_str))
}

async fn robots(State(stats): State<Arc<Stats>>) -> Response {
    stats.robots_hits.fetch_add(1, Ordering::SeqCst);
    stats
        .starts
        .lock()
        .expect("starts lock")
        .push(Instant::now());
    let mode = stats.robots.lock().expect("robots lock").clone();
    match mode {
        RobotsMode::Missing => (StatusCode::NOT_FOUND, "no robots").into_response(),
        RobotsMode::ServerError => (StatusCode::INTERNAL_SERVER_ERROR, "oops").into_response(),
        RobotsMode::Text(text) => ([(header::CONTENT_TYPE, "text/plain")], text).into_response(),
    }
}

/// Counts requests in flight (and the most at once), records start instants, works 100 ms.
async fn count(State(stats): State<Arc<Stats>>) -> &'static str {
    hit(&stats);
    stats
        .starts
        .lock()
        .expect("starts lock")
        .push(Instant::now());
    let now = stats.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    stats.max_in_flight.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(100)).await;
    stats.in_flight.fetch_sub(1, Ordering::SeqCst);
    "counted"
}
