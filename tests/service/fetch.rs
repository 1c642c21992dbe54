//! The fetcher against real HTTP servers on loopback (see `fetch_support`): responses and
//! validators, status errors, size caps, timeouts, redirects, schemes, the SSRF guard,
//! robots.txt and politeness.

use crate::fetch_support;

use std::io::Read;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use fetch_support::{CAP, ETAG, LAST_MODIFIED, RobotsMode, Stats, config, serve, serve_with};
use gleaner::config::FetchConfig;
use gleaner::fetch::{FetchError, FetchOutcome, FetchRequest, Fetched, Fetcher, ResourceKind};
use url::Url;

fn fetcher(config: &FetchConfig) -> Fetcher {
    Fetcher::new(config).expect("build the fetcher")
}

fn page(url: Url) -> FetchRequest {
    FetchRequest::new(url, ResourceKind::Page)
}

async fn fetched(fetcher: &Fetcher, request: &FetchRequest) -> Fetched {
    match fetcher.fetch(request).await {
        Ok(FetchOutcome::Fetched(fetched)) => fetched,
        other => panic!("expected a body from {}, got {other:?}", request.url),
    }
}

async fn failure(fetcher: &Fetcher, request: &FetchRequest) -> FetchError {
    match fetcher.fetch(request).await {
        Err(error) => {
            assert!(
                error.to_string().contains(request.url.as_str()),
                "`{error}` should name {}",
                request.url
            );
            error
        }
        Ok(outcome) => panic!("expected {} to fail, got {outcome:?}", request.url),
    }
}

fn ip(text: &str) -> IpAddr {
    text.parse().expect("test address")
}

#[tokio::test]
async fn ok_with_body_and_headers() {
    let server = serve("127.0.0.1").await;
    let fetcher = fetcher(&config());
    let got = fetched(&fetcher, &page(server.url("/ok"))).await;
    assert_eq!(got.status, 200);
    assert_eq!(got.final_url, server.url("/ok"));
    assert_eq!(got.media_type().as_deref(), Some("text/html"));
    assert_eq!(got.charset(), Some("ISO-8859-1"));
    assert_eq!(got.etag.as_deref(), Some(ETAG));
    assert_eq!(got.last_modified.as_deref(), Some(LAST_MODIFIED));
    assert!(
        got.bytes.contains(&0xe9),
        "the Latin-1 body arrives as sent"
    );
    let (agent, encodings) = server
        .stats
        .last_headers
        .lock()
        .expect("headers lock")
        .clone()
        .expect("the server saw the request");
    assert_eq!(agent, config().user_agent);
    for encoding in ["gzip", "br", "deflate"] {
        assert!(encodings.contains(encoding), "Accept-Encoding: {encodings}");
    }

    let small = fetched(&fetcher, &page(server.url("/gzip-small"))).await;
    assert_eq!(small.bytes, b"compressed hello");
}

#[tokio::test]
async fn a_gzip_encoded_page_keeps_the_bytes_it_was_sent_as() {
    let server = serve("127.0.0.1").await;
    let fetcher = fetcher(&config());
    let got = fetched(&fetcher, &page(server.url("/gzip-small"))).await;
    let gzip = got.gzip.expect("a gzip-encoded page keeps its gzip bytes");
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(gzip.as_slice())
        .read_to_end(&mut inflated)
        .expect("valid gzip");
    assert_eq!(inflated, got.bytes);
    // Only a page's raw bytes are stored: a feed's encoded copy is not held.
    let feed = FetchRequest::new(server.url("/gzip-small"), ResourceKind::Feed);
    let got = fetched(&fetcher, &feed).await;
    assert_eq!(
        (got.bytes.as_slice(), got.gzip),
        (&b"compressed hello"[..], None)
    );
    assert_eq!(fetched(&fetcher, &page(server.url("/ok"))).await.gzip, None);
}

#[tokio::test]
async fn conditional_requests() {
    let server = serve("127.0.0.1").await;
    let fetcher = fetcher(&config());
    let mut request = FetchRequest::new(server.url("/ok"), ResourceKind::Feed);
    request.etag = Some(ETAG.to_string());
    assert_eq!(
        fetcher.fetch(&request).await.expect("etag"),
        FetchOutcome::NotModified
    );
    request.etag = None;
    request.last_modified = Some(LAST_MODIFIED.to_string());
    assert_eq!(
        fetcher.fetch(&request).await.expect("date"),
        FetchOutcome::NotModified
    );
    request.etag = Some("\"stale\"".to_string());
    request.last_modified = None;
    assert_eq!(fetched(&fetcher, &request).await.status, 200);
}

#[tokio::test]
async fn status_errors_and_retry_after() {
    let server = serve("127.0.0.1").await;
    let fetcher = fetcher(&config());
    let error = failure(&fetcher, &page(server.url("/status/500"))).await;
    assert_eq!(error.kind().as_str(), "http_status");
    assert_eq!(error.status(), Some(500));
    assert!(error.is_transient());
    assert_eq!(error.retry_after(), None);

    let error = failure(&fetcher, &page(server.url("/status/404"))).await;
    assert_eq!(error.kind().as_str(), "http_status");
    assert!(!error.is_transient());

    for code in [429, 503] {
        let error = failure(&fetcher, &page(server.url(&format!("/status/{code}")))).await;
        assert_eq!(error.status(), Some(code));
        assert!(error.is_transient());
        assert_eq!(error.retry_after(), Some(Duration::from_secs(120)));
    }
    let error = failure(&fetcher, &page(server.url("/retry-date"))).await;
    let wait = error.retry_after().expect("an HTTP-date Retry-After");
    assert!(
        (Duration::from_secs(290)..=Duration::from_secs(300)).contains(&wait),
        "{wait:?}"
    );
}

#[tokio::test]
async fn endless_body_stops_at_the_cap() {
    let server = serve("127.0.0.1").await;
    let fetcher = fetcher(&config());
    let error = failure(&fetcher, &page(server.url("/endless"))).await;
    assert_eq!(error.kind().as_str(), "too_large");
    assert!(matches!(
        error,
        FetchError::TooLarge {
            declared: None,
            limit: CAP,
            ..
        }
    ));
    // The server produced what the cap and the socket buffers took, not the whole stream.
    let sent = server.stats.endless_bytes.load(Ordering::SeqCst);
    assert!(sent < 64 * CAP as usize, "server sent {sent} bytes");
}

#[tokio::test]
async fn content_length_over_the_cap_is_refused_before_reading() {
    let server = serve("127.0.0.1").await;
    let fetcher = fetcher(&config());
    let error = failure(&fetcher, &page(server.url("/big"))).await;
    assert_eq!(error.kind().as_str(), "too_large");
    assert!(
        matches!(error, FetchError::TooLarge { declared: Some(length), .. } if length == 2 * CAP)
    );
    // The same body is fine under a larger cap for its kind.
    let mut bigger = config();
    bigger.max_image_bytes = 4 * CAP;
    let image = FetchRequest::new(server.url("/big"), ResourceKind::Image);
    assert_eq!(
        fetched(&self::fetcher(&bigger), &image).await.bytes.len() as u64,
        2 * CAP
    );
}

#[tokio::test]
async fn gzip_bomb_stops_at_the_cap_of_decoded_bytes() {
    let server = serve("127.0.0.1").await;
    // What is tested is the cap, not the clock: on a loaded machine, decoding up to the cap
    // may take longer than the other tests' two seconds.
    let mut patient = config();
    patient.timeout_seconds = 60;
    let fetcher = fetcher(&patient);
    let error = failure(&fetcher, &page(server.url("/bomb"))).await;
    assert_eq!(error.kind().as_str(), "too_large");
    assert!(!error.is_transient());
}

#[tokio::test]
async fn timeouts_cover_headers_and_body() {
    let server = serve("127.0.0.1").await;
    let mut quick = config();
    quick.timeout_seconds = 1;
    let fetcher = fetcher(&quick);
    for path in ["/slow", "/slow-body"] {
        let started = Instant::now();
        let error = failure(&fetcher, &page(server.url(path))).await;
        assert_eq!(error.kind().as_str(), "timeout", "{path}: {error}");
        assert!(error.is_transient());
        assert!(started.elapsed() < Duration::from_secs(3), "{path}");
    }
}

#[tokio::test]
async fn redirects() {
    let server = serve("127.0.0.1").await;
    let fetcher = fetcher(&config());
    for path in ["/loop", "/loop-a"] {
        let error = failure(&fetcher, &page(server.url(path))).await;
        assert_eq!(error.kind().as_str(), "redirects", "{error}");
        assert!(error.to_string().contains("loop"), "{error}");
    }
    let got = fetched(&fetcher, &page(server.url("/chain/10"))).await;
    assert_eq!(got.final_url, server.url("/chain/0"));
    assert_eq!(got.bytes, b"end of chain");
    let error = failure(&fetcher, &page(server.url("/chain/11"))).await;
    assert_eq!(error.kind().as_str(), "redirects");
    let away = server.url("/redirect?to=ftp://127.0.0.1/file");
    assert_eq!(
        failure(&fetcher, &page(away)).await.kind().as_str(),
        "redirects"
    );
}

#[tokio::test]
async fn only_http_and_https() {
    let fetcher = fetcher(&config());
    for text in [
        "ftp://127.0.0.1/feed.xml",
        "file:///etc/passwd",
        "gopher://127.0.0.1/",
    ] {
        let url = Url::parse(text).expect("test URL");
        let error = failure(&fetcher, &page(url)).await;
        assert_eq!(error.kind().as_str(), "scheme");
        assert!(!error.is_transient());
    }
}

/// Guard on, no exemption: even the test server itself is refused, by IP and by name.
#[tokio::test]
async fn guard_refuses_loopback() {
    let server = serve("127.0.0.1").await;
    let mut strict = config();
    strict.allow_private_networks = false;
    let fetcher = fetcher(&strict);
    let by_name = Url::parse(&format!("http://localhost:{}/ok", server.port())).expect("url");
    let mapped =
        Url::parse(&format!("http://[::ffff:127.0.0.1]:{}/ok", server.port())).expect("url");
    for url in [server.url("/ok"), by_name, mapped] {
        let error = failure(&fetcher, &page(url)).await;
        assert_eq!(error.kind().as_str(), "refused_address", "{error}");
        assert!(!error.is_transient());
    }
    assert_eq!(server.stats.hits(), 0, "no request reached the server");
}

/// Guard on with 127.0.0.1 exempt: redirects and names that lead to other loopback
/// addresses are refused; the exempt address is reachable by IP and by name.
#[tokio::test]
async fn guard_checks_redirects_and_resolved_names() {
    let exempt = serve("127.0.0.1").await;
    let other = serve("127.0.0.2").await;
    let mut strict = config();
    strict.allow_private_networks = false;
    let fetcher = Fetcher::builder(&strict)
        .guard_exemption(ip("127.0.0.1"))
        .resolve("exempt.test", ip("127.0.0.1"))
        .resolve("private.test", ip("127.0.0.2"))
        .resolve("v6.test", ip("::1"))
        .build()
        .expect("build the fetcher");

    assert_eq!(
        fetched(&fetcher, &page(exempt.url("/ok"))).await.status,
        200
    );
    let named = Url::parse(&format!("http://exempt.test:{}/ok", exempt.port())).expect("url");
    assert_eq!(fetched(&fetcher, &page(named)).await.status, 200);

    let port = other.port();
    let targets = [
        format!("http://127.0.0.2:{port}/ok"),
        format!("http://private.test:{port}/ok"),
        format!("http://v6.test:{port}/ok"),
        format!("http://[::1]:{port}/ok"),
        format!("http://[::ffff:127.0.0.2]:{port}/ok"),
    ];
    for target in &targets {
        // Directly, and through a redirect from the exempt server.
        let direct = page(Url::parse(target).expect("url"));
        let error = failure(&fetcher, &direct).await;
        assert_eq!(
            error.kind().as_str(),
            "refused_address",
            "{target}: {error}"
        );
        let mut via = exempt.url("/redirect");
        via.query_pairs_mut().append_pair("to", target);
        let error = failure(&fetcher, &page(via)).await;
        assert_eq!(
            error.kind().as_str(),
            "refused_address",
            "redirect to {target}: {error}"
        );
    }
    assert_eq!(other.stats.hits(), 0, "nothing reached 127.0.0.2");
}

/// Guard off: private addresses, names resolving to them and redirects to them all work.
#[tokio::test]
async fn guard_off_allows_everything() {
    let first = serve("127.0.0.1").await;
    let second = serve("127.0.0.2").await;
    let fetcher = Fetcher::builder(&config())
        .resolve("private.test", ip("127.0.0.2"))
        .build()
        .expect("build the fetcher");
    let named = format!("http://private.test:{}/ok", second.port());
    let mut via = first.url("/redirect");
    via.query_pairs_mut().append_pair("to", &named);
    let got = fetched(&fetcher, &page(via)).await;
    assert_eq!(got.final_url.as_str(), named);
    assert_eq!(
        fetched(&fetcher, &page(second.url("/ok"))).await.status,
        200
    );
}

fn polite(robots: bool) -> FetchConfig {
    FetchConfig {
        respect_robots_txt: robots,
        ..config()
    }
}

#[tokio::test]
async fn robots_disallow_and_allow() {
    let server = serve("127.0.0.1").await;
    server.stats.set_robots(RobotsMode::Text(
        "User-agent: *\nDisallow: /\n\nUser-agent: Gleaner\nDisallow: /private\nAllow: /private/open\n"
            .to_string(),
    ));
    let fetcher = fetcher(&polite(true));
    let error = failure(&fetcher, &page(server.url("/private/x"))).await;
    assert_eq!(error.kind().as_str(), "robots");
    assert!(!error.is_transient());
    let image = FetchRequest::new(server.url("/private/x.png"), ResourceKind::Image);
    assert_eq!(failure(&fetcher, &image).await.kind().as_str(), "robots");
    assert_eq!(
        fetched(&fetcher, &page(server.url("/private/open/1")))
            .await
            .status,
        200
    );
    assert_eq!(
        fetched(&fetcher, &page(server.url("/article")))
            .await
            .status,
        200
    );
    // Feeds are not subject to robots.txt.
    let feed = FetchRequest::new(server.url("/private/feed"), ResourceKind::Feed);
    assert_eq!(fetched(&fetcher, &feed).await.status, 200);
    assert_eq!(
        server.stats.robots_hits.load(Ordering::SeqCst),
        1,
        "fetched once, cached"
    );

    // Not respected when configured so.
    let ignoring = self::fetcher(&polite(false));
    assert_eq!(
        fetched(&ignoring, &page(server.url("/private/x")))
            .await
            .status,
        200
    );
    assert_eq!(server.stats.robots_hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_feed_with_its_own_user_agent_obeys_that_agents_robots_group() {
    let server = serve("127.0.0.1").await;
    server.stats.set_robots(RobotsMode::Text(
        "User-agent: *\nAllow: /\n\nUser-agent: ReaderBot\nDisallow: /members\n".to_string(),
    ));
    let fetcher = fetcher(&polite(true));
    // gleaner's own agent falls under `*`.
    assert_eq!(
        fetched(&fetcher, &page(server.url("/members/1")))
            .await
            .status,
        200
    );
    let mut feed = gleaner::config::FeedConfig::new(
        "members",
        server.url("/feed.xml"),
        gleaner::schedule::CronSchedule::parse("*/15 * * * *").expect("a schedule"),
    );
    feed.request.user_agent = Some(reqwest::header::HeaderValue::from_static(
        "ReaderBot/2.0 (+https://reader.example)",
    ));
    let options = std::sync::Arc::new(gleaner::fetch::RequestOptions::for_feed(&feed));
    let members = page(server.url("/members/1")).with_options(&options);
    assert_eq!(failure(&fetcher, &members).await.kind().as_str(), "robots");
    let article = page(server.url("/article")).with_options(&options);
    assert_eq!(fetched(&fetcher, &article).await.status, 200);
    assert_eq!(
        server.stats.robots_hits.load(Ordering::SeqCst),
        2,
        "once for gleaner's agent, once for the feed's, each cached"
    );
}

#[tokio::test]
async fn robots_missing_failing_or_huge_allows() {
    for mode in [
        RobotsMode::Missing,
        RobotsMode::ServerError,
        // The Disallow lies past the 512 KiB that are read.
        RobotsMode::Text(format!(
            "User-agent: *\n{}Disallow: /\n",
            "# padding padding padding padding\n".repeat(20_000)
        )),
    ] {
        let server = serve("127.0.0.1").await;
        server.stats.set_robots(mode.clone());
        let fetcher = fetcher(&polite(true));
        let got = fetched(&fetcher, &page(server.url("/article"))).await;
        assert_eq!(got.status, 200, "{mode:?}");
        assert_eq!(server.stats.robots_hits.load(Ordering::SeqCst), 1);
    }
}

#[tokio::test]
async fn per_host_concurrency_is_never_exceeded() {
    let server = serve("127.0.0.1").await;
    let limited = FetchConfig {
        per_host_concurrency: 2,
        ..config()
    };
    let fetcher = fetcher(&limited);
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let fetcher = fetcher.clone();
            let request = page(server.url("/count"));
            tokio::spawn(async move { fetcher.fetch(&request).await })
        })
        .collect();
    for task in tasks {
        assert!(matches!(
            task.await.expect("task"),
            Ok(FetchOutcome::Fetched(_))
        ));
    }
    assert_eq!(server.stats.hits(), 8);
    assert_eq!(server.stats.max_in_flight.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn per_host_delay_between_starts() {
    let server = serve("127.0.0.1").await;
    let delayed = FetchConfig {
        per_host_delay_ms: 200,
        ..config()
    };
    let fetcher = fetcher(&delayed);
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let fetcher = fetcher.clone();
            let request = page(server.url("/count"));
            tokio::spawn(async move { fetcher.fetch(&request).await })
        })
        .collect();
    for task in tasks {
        assert!(task.await.expect("task").is_ok());
    }
    let mut starts = server.stats.starts.lock().expect("starts").clone();
    starts.sort();
    assert_eq!(starts.len(), 4);
    for pair in starts.windows(2) {
        let gap = pair[1] - pair[0];
        // A few milliseconds of slack for the connection set-up of the earlier request.
        assert!(gap >= Duration::from_millis(170), "gap of {gap:?}");
    }
}

/// The robots.txt fetch waits its turn like any other request to the host.
#[tokio::test]
async fn robots_fetch_is_polite_too() {
    let server = serve("127.0.0.1").await;
    let delayed = FetchConfig {
        per_host_delay_ms: 200,
        respect_robots_txt: true,
        ..config()
    };
    let fetcher = fetcher(&delayed);
    assert_eq!(
        fetched(&fetcher, &page(server.url("/count"))).await.status,
        200
    );
    assert_eq!(server.stats.robots_hits.load(Ordering::SeqCst), 1);
    let starts = server.stats.starts.lock().expect("starts").clone();
    assert_eq!(starts.len(), 2, "robots.txt, then the page");
    assert!(starts[1] - starts[0] >= Duration::from_millis(170));
}

/// Idle hosts are forgotten: 300 host names (all resolving to the one test server) leave
/// fewer than 300 entries behind.
#[tokio::test]
async fn idle_hosts_are_evicted() {
    let server = serve("127.0.0.1").await;
    let names: Vec<String> = (0..300).map(|i| format!("host{i}.test")).collect();
    let mut builder = Fetcher::builder(&config());
    for name in &names {
        builder = builder.resolve(name, ip("127.0.0.1"));
    }
    let fetcher = builder.build().expect("build the fetcher");
    for name in &names {
        let url = Url::parse(&format!("http://{name}:{}/ok", server.port())).expect("url");
        assert_eq!(fetched(&fetcher, &page(url)).await.status, 200);
    }
    assert_eq!(server.stats.hits(), 300);
    assert!(fetcher.tracked_hosts() < 300, "{}", fetcher.tracked_hosts());
}

/// Hosts are 127.0.0.1 … 127.0.0.4 (politeness is keyed by host, not port); one `Stats`
/// counts requests in flight across all four.
#[tokio::test]
async fn global_concurrency_across_hosts() {
    let stats = Stats::new();
    let mut servers = Vec::new();
    for host in ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"] {
        servers.push(serve_with(host, stats.clone()).await);
    }
    let capped = FetchConfig {
        concurrency: 2,
        per_host_concurrency: 2,
        ..config()
    };
    let fetcher = fetcher(&capped);
    let tasks: Vec<_> = servers
        .iter()
        .flat_map(|server| [server.url("/count"), server.url("/count")])
        .map(|url| {
            let fetcher = fetcher.clone();
            tokio::spawn(async move { fetcher.fetch(&page(url)).await })
        })
        .collect();
    for task in tasks {
        assert!(task.await.expect("task").is_ok());
    }
    assert_eq!(stats.hits(), 8);
    assert_eq!(stats.max_in_flight.load(Ordering::SeqCst), 2);
    assert!(fetcher.tracked_hosts() <= 4);
}
