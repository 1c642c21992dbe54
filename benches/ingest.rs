//! End-to-end ingestion benchmark: N feeds × M articles served on 127.0.0.1, one
//! `poll --once` cycle into SQLite or PostgreSQL, reporting articles per second, CPU
//! milliseconds per stored article (this process; with `--backend postgres` also the
//! database server's backends) and peak RSS.
//!
//! ```text
//! cargo bench --bench ingest -- --feeds 100 --articles 20 --backend sqlite \
//!     --pages ../shared/bench/scrapinghub/html
//! GLEANER_BENCH_POSTGRES_URL="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable" \
//!     cargo bench --bench ingest -- --feeds 100 --articles 20 --backend postgres --pages …
//! ```
//!
//! With `--pages DIR` (relative to the checkout), article pages are real ones: the `*.html.gz`
//! files of DIR, read from disk on each request and served gzip-encoded as they are (article k of
//! the run gets file k modulo their number), images not downloaded (they name hosts out of reach).
//! Without it, pages are generated from their path (about 60 KB of realistic markup: navigation,
//! inline styles and scripts, the article, comments, a footer), each with one image. Either way the
//! farm holds no per-article memory, so the peak RSS is gleaner's. The farm runs in this process
//! unless `--farm` names one that another process serves: its CPU (reading files, serving bytes,
//! 0.05–0.1 ms per article) is then in the process figure. All requests go to one host, so the
//! per-host limits are lifted to the global concurrency: the figure measures gleaner, not its
//! politeness.
//!
//! `--farm URL` ingests a farm that another process serves (`--serve-only`, started with the
//! same `--feeds`, `--articles` and `--pages`), so that the CPU time and peak RSS printed are
//! gleaner's alone, as a side-by-side run measures the other reader.
//!
//! `--no-site-templates` turns the per-site template model off, to measure its cost.
//! After the summary line, the CPU per stored article of each stage (`gleaner::stages`: feed
//! parsing, page parse, DOM pass, page type, template, the cascade and each candidate it runs,
//! quality, verdict, metadata, sanitizing, the feed's text, fingerprint, compression), with how
//! often each ran per article and the allocations it made itself per article; the rest of the
//! process's CPU and allocations is fetching, HTTP, the store's writes, the runtime and the
//! in-process farm. `--no-stages` leaves the clocks unread, to measure what they cost.
//! `--serve-only FILE` serves the farm alone and writes its feeds to FILE as OPML, until
//! interrupted, so that another feed reader can ingest the same farm (see
//! `benches/miniflux_side_by_side.py` and docs/performance.md).
//!
//! The server's CPU is the user + system time of the PostgreSQL backends connected to the
//! bench's database when the poll ends (from `/proc/PID/stat`, so the server must run on
//! this machine); the shared background processes (WAL writer, checkpointer) are not in it.

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
    /// A directory of `*.html.gz` article pages to serve instead of generated ones.
    pages: Option<std::path::PathBuf>,
    /// Learn and apply site templates (`--no-site-templates` turns them off).
    site_templates: bool,
    /// Charge CPU time to each stage and print the breakdown (`--no-stages` turns it off, to
    /// measure what the clock reads cost).
    stages: bool,
    /// Serve the farm only, writing its feeds as OPML to this file, until interrupted: for
    /// another reader to ingest the same farm side by side.
    serve_only: Option<std::path::PathBuf>,
    /// A farm already serving in another process (`--serve-only`'s `farm=` address), so that
    /// the CPU time and peak RSS printed are gleaner's alone.
    farm: Option<String>,
}

fn options() -> Options {
    let mut options = Options {
        feeds: 100,
        articles: 10,
        backend: "sqlite".to_string(),
        concurrency: 16,
        pages: None,
        serve_only: None,
        farm: None,
        site_templates: true,
        stages: true,
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
    // A relative `--pages` (`../shared/bench/…`) is read from the checkout, wherever the
    // bench runs from.
    options.pages =
        value("--pages").map(|pages| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(pages));
    options.serve_only = value("--serve-only").map(Into::into);
    options.farm = value("--farm");
    options.site_templates = !args.iter().any(|a| a == "--no-site-templates");
    options.stages = !args.iter().any(|a| a == "--no-stages");
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

/// The real pages a farm serves, by path; read on each request, never kept.
#[derive(Clone, Default)]
struct RealPages(std::sync::Arc<Vec<std::path::PathBuf>>);

impl RealPages {
    fn load(dir: &Path) -> anyhow::Result<RealPages> {
        let mut files: Vec<_> = std::fs::read_dir(dir)?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.to_string_lossy().ends_with(".html.gz"))
            .collect();
        files.sort();
        anyhow::ensure!(!files.is_empty(), "no *.html.gz in {}", dir.display());
        Ok(RealPages(std::sync::Arc::new(files)))
    }

    /// Article `article` of feed `feed` as a gzip-encoded response, when pages are real.
    async fn answer(&self, feed: &str, article: &str, articles: usize) -> Option<Response> {
        let (feed, article): (usize, usize) = (feed.parse().ok()?, article.parse().ok()?);
        let path = self
            .0
            .get((feed * articles + article) % self.0.len().max(1))?;
        let gzip = tokio::fs::read(path).await.ok()?;
        Response::builder()
            .header(header::CONTENT_TYPE, "text/html")
            .header(header::CONTENT_ENCODING, "gzip")
            .body(Body::from(gzip))
            .ok()
    }
}

/// Answers a farm request from its path alone.
async fn answer(uri: &Uri, base: &str, articles: usize, real: &RealPages) -> Response {
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
        ["article", feed, name] => {
            let name = name.trim_end_matches(".html");
            if !real.0.is_empty()
                && let Some(response) = real.answer(feed, name, articles).await
            {
                return response;
            }
            (
                "text/html; charset=utf-8",
                article_html(feed, name).into_bytes(),
            )
        }
        ["img", ..] => ("image/png", PNG.to_vec()),
        _ => ("text/plain", b"not found".to_vec()),
    };
    Response::builder()
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

/// User + system CPU seconds of a process, from `/proc/PID/stat` (Linux).
fn process_cpu_seconds(pid: i32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // The kernel's USER_HZ, 100 on every Linux this bench runs on.
    Some(ticks / 100.0)
}

/// CPU seconds of the PostgreSQL backends connected to database `name`.
async fn server_cpu_seconds(admin: &str, name: &str) -> anyhow::Result<f64> {
    let mut conn = sqlx::PgConnection::connect(admin).await?;
    let pids: Vec<i32> = sqlx::query_scalar("SELECT pid FROM pg_stat_activity WHERE datname = $1")
        .bind(name)
        .fetch_all(&mut conn)
        .await?;
    Ok(pids.into_iter().filter_map(process_cpu_seconds).sum())
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
    // As the binary does, so that the peak RSS is the daemon's.
    gleaner::allocator::bound_retained_memory();
    let options = options();
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this with no options and
    // must stay quick.
    let quick = std::env::args().all(|a| a != "--bench");
    let (feeds, articles) = if quick {
        (3, 2)
    } else {
        (options.feeds, options.articles)
    };

    let base = match &options.farm {
        Some(farm) => {
            // Only a farm on this machine: the bench never reaches anything else.
            let url = url::Url::parse(farm)?;
            anyhow::ensure!(
                matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]")),
                "--farm must be a loopback address, not {farm}"
            );
            farm.trim_end_matches('/').to_string()
        }
        None => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            let base = format!("http://{}", listener.local_addr()?);
            let farm_base = base.clone();
            let real = match &options.pages {
                Some(dir) => RealPages::load(dir)?,
                None => RealPages::default(),
            };
            let app = axum::Router::new().fallback(move |uri: Uri| {
                let (base, real) = (farm_base.clone(), real.clone());
                async move { answer(&uri, &base, articles, &real).await }
            });
            if let Some(opml) = &options.serve_only {
                let outlines: String = (0..feeds)
                    .map(|feed| {
                        format!(
                            "<outline type=\"rss\" text=\"desk-{feed}\" title=\"desk-{feed}\" \
                             xmlUrl=\"{base}/feed/{feed}.xml\"/>"
                        )
                    })
                    .collect();
                std::fs::write(
                    opml,
                    format!(
                        "<?xml version=\"1.0\"?><opml version=\"2.0\"><head><title>farm</title></head>\
                         <body>{outlines}</body></opml>"
                    ),
                )?;
                println!("farm={base} feeds={feeds} opml={}", opml.display());
                return Ok(axum::serve(listener, app).await?);
            }
            tokio::spawn(async move { axum::serve(listener, app).await });
            base
        }
    };

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
    if !options.site_templates {
        // To measure what learning and applying the site's template costs.
        text.push_str("[extract]\nsite_templates = false\n");
    }
    if options.pages.is_some() {
        // Real pages name images on hosts this machine cannot reach: text only.
        text.push_str("[images]\ndownload = false\n");
    }
    for feed in 0..feeds {
        text.push_str(&format!(
            "[[feeds]]\nname = \"desk-{feed}\"\nurl = \"{base}/feed/{feed}.xml\"\n"
        ));
    }
    let config = Config::parse(&text, Path::new("bench.toml"), Some(&database_url))?;

    let ctx = daemon::prepare(config).await?;
    if options.stages {
        gleaner::stages::enable();
    }
    let server_before = match &cleanup {
        Some((admin, name)) => server_cpu_seconds(admin, name).await?,
        None => 0.0,
    };
    let cpu_before = cpu_time::ProcessTime::now();
    let started = Instant::now();
    let summary = daemon::poll_once(&ctx, true, &CancellationToken::new(), |_| {}, |_| {}).await?;
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_before.elapsed().as_secs_f64();
    let server_cpu = match &cleanup {
        Some((admin, name)) => Some(server_cpu_seconds(admin, name).await? - server_before),
        None => None,
    };
    ctx.store.close().await;
    let stored = summary.new_articles.max(1) as f64;
    let server = server_cpu.map_or(String::new(), |seconds| {
        format!(
            " server_cpu_ms_per_article={:.2} total_cpu_ms_per_article={:.2}",
            seconds * 1000.0 / stored,
            (cpu + seconds) * 1000.0 / stored
        )
    });
    println!(
        "backend={} pages={} feeds={} articles_per_feed={} stored={} failed={} feed_errors={} elapsed_s={:.2} articles_per_s={:.1} cpu_ms_per_article={:.2}{} peak_rss_mib={:.1}",
        options.backend,
        if options.pages.is_some() {
            "real"
        } else {
            "generated"
        },
        feeds,
        articles,
        summary.new_articles,
        summary.failed_articles,
        summary.errors,
        elapsed,
        summary.new_articles as f64 / elapsed.max(f64::EPSILON),
        cpu * 1000.0 / stored,
        server,
        peak_rss_mib()
    );
    if options.stages {
        print_stages(cpu, stored);
    }
    if let Some((admin, name)) = cleanup {
        let mut conn = sqlx::PgConnection::connect(&admin).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        )))
        .execute(&mut conn)
        .await?;
    }
    // A real page may hold no article to extract: it is a recorded failure, not a lost one.
    anyhow::ensure!(
        summary.new_articles + summary.failed_articles == feeds * articles,
        "not every article was stored or recorded as failed"
    );
    Ok(())
}

/// The stage breakdown: CPU milliseconds per stored article of each stage, its share of the
/// process's CPU and how many times it ran per article; then the rest.
fn print_stages(process_cpu: f64, stored: f64) {
    let totals = gleaner::stages::totals();
    let measured: f64 = totals.iter().map(|t| t.cpu_seconds).sum();
    println!(
        "stage                 cpu_ms_per_article  share  runs_per_article  allocations_per_article"
    );
    for total in &totals {
        println!(
            "{:<21} {:>18.3} {:>5.1}% {:>17.2} {:>24.0}",
            total.stage.name(),
            total.cpu_seconds * 1000.0 / stored,
            100.0 * total.cpu_seconds / process_cpu.max(f64::EPSILON),
            total.calls as f64 / stored,
            total.allocations as f64 / stored
        );
    }
    let measured_allocations: u64 = totals.iter().map(|t| t.allocations).sum();
    let process_allocations = gleaner::allocator::process_allocations();
    let rest = (process_cpu - measured).max(0.0);
    println!(
        "{:<21} {:>18.3} {:>5.1}% {:>17} {:>24.0}",
        "measured",
        measured * 1000.0 / stored,
        100.0 * measured / process_cpu.max(f64::EPSILON),
        "",
        measured_allocations as f64 / stored
    );
    println!(
        "{:<21} {:>18.3} {:>5.1}% {:>17} {:>24.0}   (fetch, HTTP, store writes, runtime)",
        "rest",
        rest * 1000.0 / stored,
        100.0 * rest / process_cpu.max(f64::EPSILON),
        "",
        process_allocations.saturating_sub(measured_allocations) as f64 / stored
    );
}
