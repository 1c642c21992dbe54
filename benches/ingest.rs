//! End-to-end ingestion benchmark: N feeds × M articles served on 127.0.0.1, one
//! `poll --once` cycle into SQLite or PostgreSQL, reporting articles per second and peak RSS.
//!
//! ```text
//! cargo bench --bench ingest -- --feeds 1000 --articles 10 --backend sqlite
//! GLEANER_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres \
//!     cargo bench --bench ingest -- --feeds 1000 --articles 10 --backend postgres
//! ```
//!
//! Pages are generated from their path on each request (about 60 KB of realistic markup:
//! navigation, inline styles and scripts, the article, comments, a footer), each with one
//! image, so the farm itself holds no per-article memory. All requests go to one host, so the
//! per-host limits are lifted to the global concurrency: the figure measures gleaner, not
//! its politeness.

use std::path::Path;
use std::time::Instant;

use axum::body::Body;
use axum::http::{Uri, header};
use axum::response::Response;
use gleaner::config::Config;
use gleaner::daemon;
use sqlx::Connection;
use tokio_util::sync::CancellationToken;

struct Options {
    feeds: usize,
    articles: usize,
    backend: String,
    concurrency: usize,
}

fn options() -> Options {
    let mut options = Options {
        feeds: 100,
        articles: 10,
        backend: "sqlite".to_string(),
        concurrency: 16,
    };
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if let Some(n) = value("--feeds").and_then(|v| v.parse().ok()) {
        options.feeds = n;
    }
    if let Some(n) = value("--articles").and_then(|v| v.parse().ok()) {
        options.articles = n;
    }
    if let Some(b) = value("--backend") {
        options.backend = b;
    }
    if let Some(n) = value("--concurrency").and_then(|v| v.parse().ok()) {
        options.concurrency = n;
    }
    options
}

fn feed_xml(base: &str, feed: usize, articles: usize) -> String {
    let items: String = (0..articles)
        .map(|a| {
            format!(
                "<item><title>Report {a} from desk {feed}</title>\
                 <link>{base}/article/{feed}/{a}.html</link><guid>desk-{feed}-{a}</guid>\
                 <pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>"
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Desk {feed}</title>\
         <link>{base}/</link>{items}</channel></rss>"
    )
}

fn article_html(feed: &str, article: &str) -> String {
    let style = ".nav{display:flex;gap:1em}.story p{line-height:1.6}\n".repeat(150);
    let script =
        "window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}\n"
            .repeat(200);
    let nav: String = (0..40)
        .map(|n| format!("<li><a href=\"/section/{n}\">Section {n}</a></li>"))
        .collect();
    let body: String = (0..12)
        .map(|p| {
            format!(
                "<p>Paragraph {p} of report {article} from desk {feed}. Officials said on \
                 Tuesday that the plan, which has been debated for months, would move ahead \
                 after the council approved funding for roads, schools and a new library, \
                 and residents who spoke at the meeting welcomed the decision.</p>"
            )
        })
        .collect();
    let comments: String = (0..15)
        .map(|c| format!("<div class=\"comment\"><a href=\"/u/{c}\">reader{c}</a><p>Comment {c}: great read.</p></div>"))
        .collect();
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Report {article} from desk {feed}</title>\
         <style>{style}</style><script>{script}</script></head><body>\
         <header><ul class=\"nav\">{nav}</ul></header><main><article class=\"story\">\
         <h1>Report {article} from desk {feed}</h1><p class=\"byline\">By Staff</p>\
         <figure><img src=\"/img/{feed}/{article}.png\" alt=\"Scene\" width=\"1200\" height=\"800\">\
         <figcaption>The scene on Tuesday.</figcaption></figure>{body}</article>\
         <section class=\"comments\">{comments}</section></main>\
         <footer><p>© Desk {feed}</p><a href=\"/about\">About</a></footer></body></html>"
    )
}

const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0,
    1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 13, 0x49, 0x44, 0x41, 0x54,
    0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0, 0x05, 0, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d,
    0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Answers a farm request from its path alone.
fn answer(uri: &Uri, base: &str, articles: usize) -> Response {
    let path = uri.path();
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (content_type, body): (&str, Vec<u8>) = match parts.as_slice() {
        ["feed", name] => {
            let feed = name.trim_end_matches(".xml").parse().unwrap_or(0);
            (
                "application/rss+xml",
                feed_xml(base, feed, articles).into_bytes(),
            )
        }
        ["article", feed, name] => (
            "text/html; charset=utf-8",
            article_html(feed, name.trim_end_matches(".html")).into_bytes(),
        ),
        ["img", ..] => ("image/png", PNG.to_vec()),
        _ => ("text/plain", b"not found".to_vec()),
    };
    Response::builder()
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

/// Peak resident set size of this process, in MiB (Linux).
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let options = options();
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this with no options and
    // must stay quick.
    let quick = std::env::args().all(|a| a != "--bench");
    let (feeds, articles) = if quick {
        (3, 2)
    } else {
        (options.feeds, options.articles)
    };

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let farm_base = base.clone();
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let base = farm_base.clone();
        async move { answer(&uri, &base, articles) }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });

    let dir = tempfile::tempdir()?;
    let (database_url, cleanup) = match options.backend.as_str() {
        "sqlite" => (
            format!("sqlite://{}", dir.path().join("bench.db").display()),
            None,
        ),
        "postgres" => {
            let admin = std::env::var("GLEANER_BENCH_POSTGRES_URL").map_err(|_| {
                anyhow::anyhow!("set GLEANER_BENCH_POSTGRES_URL for --backend postgres")
            })?;
            let name = format!("gleaner_bench_{}", std::process::id());
            let mut conn = sqlx::PgConnection::connect(&admin).await?;
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&mut conn)
                .await?;
            let mut url = url::Url::parse(&admin)?;
            url.set_path(&name);
            (url.to_string(), Some((admin, name)))
        }
        other => anyhow::bail!("unknown backend {other}: sqlite or postgres"),
    };

    let mut text = format!(
        "[fetch]\nallow_private_networks = true\nrespect_robots_txt = false\nper_host_delay_ms = 0\n\
         concurrency = {c}\nper_host_concurrency = {c}\n",
        c = options.concurrency
    );
    for feed in 0..feeds {
        text.push_str(&format!(
            "[[feeds]]\nname = \"desk-{feed}\"\nurl = \"{base}/feed/{feed}.xml\"\n"
        ));
    }
    let config = Config::parse(&text, Path::new("bench.toml"), Some(&database_url))?;

    let ctx = daemon::prepare(config).await?;
    let started = Instant::now();
    let summary = daemon::poll_once(&ctx, true, &CancellationToken::new(), |_| {}, |_| {}).await?;
    let elapsed = started.elapsed().as_secs_f64();
    ctx.store.close().await;
    println!(
        "backend={} feeds={} articles_per_feed={} stored={} failed={} feed_errors={} elapsed_s={:.2} articles_per_s={:.1} peak_rss_mib={:.1}",
        options.backend,
        feeds,
        articles,
        summary.new_articles,
        summary.failed_articles,
        summary.errors,
        elapsed,
        summary.new_articles as f64 / elapsed.max(f64::EPSILON),
        peak_rss_mib()
    );
    if let Some((admin, name)) = cleanup {
        let mut conn = sqlx::PgConnection::connect(&admin).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        )))
        .execute(&mut conn)
        .await?;
    }
    anyhow::ensure!(
        summary.new_articles == feeds * articles,
        "not every article was stored"
    );
    Ok(())
}
