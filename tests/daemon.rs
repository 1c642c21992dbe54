//! `gleaner run` as a service: the real binary, reloads by file change and SIGHUP, an invalid
//! reload kept out, a removed feed stopped, SIGTERM ending it cleanly with exit status 0, also
//! while it extracts a page nested 100,000 deep.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use common::TestDb;
use common::farm::{self, Farm, Item};
use gleaner::store::{ArticleFilter, Store};

on_both_databases!(the_service_reloads_and_stops_cleanly);

const BINARY: &str = env!("CARGO_BIN_EXE_gleaner");

fn config_text(db: &TestDb, farm: &Farm, feeds: &[&str]) -> String {
    let mut text = format!(
        "[database]\nurl = \"{}\"\n[schedule]\ndefault = \"*/1 * * * * *\"\njitter_seconds = 0\n\
         [fetch]\nallow_private_networks = true\nper_host_delay_ms = 0\nrespect_robots_txt = false\n\
         timeout_seconds = 2\n[daemon]\nshutdown_grace_seconds = 5\n\
         [api]\nlisten = \"127.0.0.1:0\"\n",
        db.url()
    );
    for feed in feeds {
        text.push_str(&format!(
            "[[feeds]]\nname = \"{feed}\"\nurl = \"{}\"\n",
            farm.url(&format!("/{feed}.xml"))
        ));
    }
    text
}

fn serve_feed(farm: &Farm, feed: &str, articles: usize) {
    let items: Vec<Item> = (0..articles)
        .map(|n| {
            let path = format!("/{feed}/{n}.html");
            let title = format!("{feed} story {n}");
            farm.html(
                &path,
                &farm::article_page(&title, &farm::paragraphs(n), None),
            );
            Item {
                guid: format!("{feed}-{n}"),
                url: farm.url(&path),
                title,
            }
        })
        .collect();
    farm.route(
        &format!("/{feed}.xml"),
        farm::ok("application/rss+xml", farm::rss(&items).into()),
    );
}

/// Waits, within a deadline, until the store holds `count` articles of `feed`.
async fn wait_for_articles(
    store: &Store,
    feed: &str,
    count: usize,
    child: &mut Child,
) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let filter = ArticleFilter {
            feed: Some(feed.to_string()),
            limit: 1000,
            ..Default::default()
        };
        if store.list_articles(&filter).await?.len() >= count {
            return Ok(());
        }
        if let Some(status) = child.try_wait()? {
            anyhow::bail!("the service exited early with {status}");
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "no {count} articles of {feed} in time"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn signal(child: &Child, name: &str) -> anyhow::Result<()> {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()?;
    anyhow::ensure!(status.success(), "kill -{name}");
    Ok(())
}

async fn the_service_reloads_and_stops_cleanly(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for feed in ["alpha", "beta", "gamma"] {
        serve_feed(&farm, feed, 3);
    }
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&db, &farm, &["alpha"]))?;
    let log = dir.path().join("service.log");
    let mut child = Command::new(BINARY)
        .args(["--log-format", "json", "--config"])
        .arg(&config)
        .arg("run")
        .env_remove("GLEANER_DATABASE_URL")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log)?)
        .spawn()?;
    let outcome = exercise(&db, &farm, &config, &log, &mut child).await;
    if outcome.is_err() {
        let _ = child.kill();
        let _ = child.wait();
        eprintln!(
            "service log:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        return outcome;
    }
    let logged = std::fs::read_to_string(&log)?;
    assert!(logged.contains("SIGHUP"), "{logged}");
    assert!(logged.contains("configuration not reloaded"), "{logged}");
    assert!(logged.contains("SIGTERM"), "{logged}");
    Ok(())
}

/// The address the service's API bound, from its JSON log.
fn api_address(log: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(log)?;
    let line = text
        .lines()
        .find(|l| l.contains("API listening"))
        .context("the API announced its address")?;
    let event: serde_json::Value = serde_json::from_str(line)?;
    Ok(event["address"]
        .as_str()
        .context("address field")?
        .to_string())
}

async fn exercise(
    db: &TestDb,
    farm: &Farm,
    config: &Path,
    log: &Path,
    child: &mut Child,
) -> anyhow::Result<()> {
    wait_for_articles(&db.store, "alpha", 3, child).await?;

    // The API is served by the same process, over the same database.
    let api = format!("http://{}", api_address(log)?);
    let client = reqwest::Client::new();
    let health = client.get(format!("{api}/healthz")).send().await?;
    assert_eq!(health.status(), 200);
    let articles: serde_json::Value = serde_json::from_str(
        &client
            .get(format!("{api}/articles"))
            .send()
            .await?
            .text()
            .await?,
    )?;
    assert!(articles.to_string().contains("alpha story"), "{articles}");
    let metrics = client
        .get(format!("{api}/metrics"))
        .send()
        .await?
        .text()
        .await?;
    for name in [
        "gleaner_articles_stored_total",
        "gleaner_feed_polls_total",
        "gleaner_fetch_duration_seconds",
    ] {
        assert!(metrics.contains(name), "{name} in:\n{metrics}");
    }

    // A new feed in the file starts without a signal.
    std::fs::write(config, config_text(db, farm, &["alpha", "beta"]))?;
    wait_for_articles(&db.store, "beta", 3, child).await?;

    // A broken file is refused; the service keeps running with what it had.
    std::fs::write(config, "[fetch]\nconcurency = 3\n")?;
    tokio::time::sleep(Duration::from_secs(3)).await;
    anyhow::ensure!(
        child.try_wait()?.is_none(),
        "the service survived a broken file"
    );

    // SIGHUP reloads too; alpha is removed and stops being polled, its articles stay.
    std::fs::write(config, config_text(db, farm, &["beta", "gamma"]))?;
    signal(child, "HUP")?;
    wait_for_articles(&db.store, "gamma", 3, child).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let alpha_polls = farm.hits("/alpha.xml");
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        farm.hits("/alpha.xml"),
        alpha_polls,
        "a removed feed is not polled"
    );
    assert!(farm.hits("/beta.xml") >= 2, "kept feeds keep polling");
    let alpha = db
        .store
        .feed_by_name("alpha")
        .await?
        .context("alpha row kept")?;
    assert!(!alpha.active);
    assert_eq!(alpha.articles, 3);

    // SIGTERM: exit 0 within the grace period.
    signal(child, "TERM")?;
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "the service did not stop in time"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status.code(), Some(0));
    let all = db
        .store
        .list_articles(&ArticleFilter {
            limit: 100,
            ..Default::default()
        })
        .await?;
    assert_eq!(all.len(), 9, "every article once");
    for row in all {
        let article = db.store.article(row.id).await?.context("article")?;
        assert!(!article.text.is_empty());
    }
    Ok(())
}

/// SIGTERM while the service works on a page of 100,000 nested elements (once minutes of
/// extraction on the blocking pool, which kept the process alive after "stopped"): the
/// process exits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_the_process_during_a_deep_page() -> anyhow::Result<()> {
    let db = TestDb::sqlite().await?;
    let farm = Farm::start().await?;
    let depth = 100_000;
    let page = format!(
        "<html><head><title>Deep story</title></head><body>{}<p>{}</p>{}</body></html>",
        "<div>".repeat(depth),
        farm::paragraphs(3).join(" "),
        "</div>".repeat(depth)
    );
    farm.html("/deep/0.html", &page);
    let item = Item {
        guid: "deep-0".to_string(),
        url: farm.url("/deep/0.html"),
        title: "Deep story".to_string(),
    };
    farm.route(
        "/deep.xml",
        farm::ok("application/rss+xml", farm::rss(&[item]).into()),
    );
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&db, &farm, &["deep"]))?;
    let mut child = Command::new(BINARY)
        .args(["--config"])
        .arg(&config)
        .arg("run")
        .env_remove("GLEANER_DATABASE_URL")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let outcome = async {
        let deadline = Instant::now() + Duration::from_secs(30);
        while farm.hits("/deep/0.html") == 0 {
            anyhow::ensure!(Instant::now() < deadline, "the deep page was never fetched");
            anyhow::ensure!(child.try_wait()?.is_none(), "the service exited early");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        signal(&child, "TERM")?;
        // Generous: the grace period is 5 s; without an end to the process, never.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok(status);
            }
            anyhow::ensure!(Instant::now() < deadline, "the process outlived SIGTERM");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    .await;
    if outcome.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    assert!(outcome?.success());
    Ok(())
}
