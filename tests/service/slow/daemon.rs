//! `gleaner run` as a service: the real binary, reloads by file change and SIGHUP, an invalid
//! or emptied reload kept out, a removed feed stopped, SIGTERM ending it cleanly with exit
//! status 0, also while it extracts a page nested 100,000 deep; a lease the database would not
//! take back does not stop a feed, a feed nobody polls is shown overdue; a file without feeds
//! stops the stored ones only when it says `feeds = []`.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use common::TestDb;
use common::farm::{self, Farm, Item};
use gleaner::store::{ArticleFilter, Store};

on_both_databases!(
    the_service_reloads_and_stops_cleanly,
    a_feed_whose_lease_is_not_taken_back_is_polled_again_and_a_stuck_one_is_overdue,
    a_file_without_feeds_stops_the_stored_ones_only_when_it_says_so,
);

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

async fn the_service_reloads_and_stops_cleanly(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for feed in ["alpha", "beta", "gamma"] {
        serve_feed(&farm, feed, 3);
    }
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&db, &farm, &["alpha"]))?;
    let log = dir.path().join("service.log");
    let mut child = spawn_logged(&config, &log)?;
    let outcome = exercise(&db, &farm, &config, &log, &mut child).await;
    if outcome.is_err() {
        stop_and_show_log(&mut child, &log);
        return outcome;
    }
    let logged = std::fs::read_to_string(&log)?;
    let kind = if db.url().starts_with("postgres") {
        "postgres"
    } else {
        "sqlite"
    };
    let started = format!("started: 1 feeds on {kind}, API 127.0.0.1:");
    assert!(logged.contains(&started), "{logged}");
    assert!(logged.contains("; first feed: next poll at "), "{logged}");
    assert!(logged.contains("SIGHUP"), "{logged}");
    assert!(logged.contains("configuration not reloaded"), "{logged}");
    assert!(logged.contains("lists no feeds"), "{logged}");
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

    // So is a file cut short before its feeds: they keep polling.
    std::fs::write(config, config_text(db, farm, &[]))?;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let beta = db.store.feed_by_name("beta").await?.context("beta row")?;
    assert!(beta.active, "a file without feeds stopped none");

    // SIGHUP reloads too; alpha is removed and stops being polled, its articles stay.
    std::fs::write(config, config_text(db, farm, &["beta", "gamma"]))?;
    common::send_signal(child, "HUP")?;
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
    stop(child).await?;
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

/// Sends SIGTERM and waits for exit status 0.
async fn stop(child: &mut Child) -> anyhow::Result<()> {
    common::send_signal(child, "TERM")?;
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
    anyhow::ensure!(status.code() == Some(0), "exit status {status}");
    Ok(())
}

/// Waits, within a deadline, until `done` holds, the service still running.
async fn wait_until<F, Fut>(child: &mut Child, what: &str, mut done: F) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<bool>>,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done().await? {
        if let Some(status) = child.try_wait()? {
            anyhow::bail!("the service exited early with {status}");
        }
        anyhow::ensure!(Instant::now() < deadline, "not in time: {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(())
}

/// The database refuses to take a lease back at the end of each poll (a write failing as in a
/// failover or on a full disk): the lease is no longer renewed, lapses, and the feed is polled
/// again. Then a vanished replica holds the feed's lease: the feed is shown overdue by
/// `/healthz` (200, `degraded`), `/metrics` and `gleaner feeds`, until the lease is freed.
async fn a_feed_whose_lease_is_not_taken_back_is_polled_again_and_a_stuck_one_is_overdue(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    serve_feed(&farm, "alpha", 1);
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    let text = config_text(&db, &farm, &["alpha"])
        .replace("[daemon]\n", "[daemon]\nfeed_lease_seconds = 2\n");
    std::fs::write(&config, text)?;
    let log = dir.path().join("service.log");
    let mut child = spawn_logged(&config, &log)?;
    let outcome = leases_and_overdue(&db, &farm, &config, &log, &mut child).await;
    if outcome.is_err() {
        stop_and_show_log(&mut child, &log);
    }
    outcome
}

async fn leases_and_overdue(
    db: &TestDb,
    farm: &Farm,
    config: &Path,
    log: &Path,
    child: &mut Child,
) -> anyhow::Result<()> {
    wait_for_articles(&db.store, "alpha", 1, child).await?;
    let api = format!("http://{}", api_address(log)?);
    let client = reqwest::Client::new();

    common::faults::refuse_lease_releases(db, true).await?;
    let polls = farm.hits("/alpha.xml");
    wait_until(
        child,
        "polled again though its lease was not taken back",
        || {
            let hits = farm.hits("/alpha.xml");
            async move { Ok(hits >= polls + 2) }
        },
    )
    .await?;
    common::faults::refuse_lease_releases(db, false).await?;

    let far = chrono::Utc::now() + chrono::Duration::days(1);
    common::faults::set_lease(db, "alpha", Some(("vanished-replica", far))).await?;
    let health = || {
        let request = client.get(format!("{api}/healthz"));
        async move {
            let response = request.send().await?;
            anyhow::ensure!(response.status() == 200, "healthz {}", response.status());
            anyhow::Ok(serde_json::from_str::<serde_json::Value>(
                &response.text().await?,
            )?)
        }
    };
    wait_until(child, "healthz names the overdue feed", || async {
        let body = health().await?;
        Ok(body["status"] == "degraded" && body["overdue_feeds"][0]["name"] == "alpha")
    })
    .await?;
    let metrics = client
        .get(format!("{api}/metrics"))
        .send()
        .await?
        .text()
        .await?;
    assert!(metrics.contains("\ngleaner_feeds_overdue 1\n"), "{metrics}");
    let listed = common::gleaner_in(config.parent().context("config dir")?)
        .arg("--config")
        .arg(config)
        .args(["feeds", "--json"])
        .output()?;
    assert!(listed.status.success(), "{listed:?}");
    let feeds: serde_json::Value = serde_json::from_slice(&listed.stdout)?;
    assert!(feeds[0]["overdue_since"].is_string(), "{feeds}");
    let table = common::gleaner_in(config.parent().context("config dir")?)
        .arg("--config")
        .arg(config)
        .arg("feeds")
        .output()?;
    assert!(
        String::from_utf8_lossy(&table.stdout).contains("OVERDUE"),
        "{table:?}"
    );

    common::faults::set_lease(db, "alpha", None).await?;
    let polls = farm.hits("/alpha.xml");
    wait_until(child, "polled again once the lease is free", || {
        let hits = farm.hits("/alpha.xml");
        async move { Ok(hits > polls) }
    })
    .await?;
    wait_until(child, "healthz ok again", || async {
        Ok(health().await?["status"] == "ok")
    })
    .await?;
    stop(child).await
}

/// `poll --once` (and `run`, which starts the same way) refuses a file without feeds while
/// the database has active ones, saying how to mean it; `feeds = []` means it.
async fn a_file_without_feeds_stops_the_stored_ones_only_when_it_says_so(
    db: TestDb,
) -> anyhow::Result<()> {
    let kept = gleaner::config::FeedConfig::new(
        "kept",
        "https://news.example.org/feed.xml".parse()?,
        gleaner::schedule::CronSchedule::parse("*/15 * * * *")?,
    );
    db.store.sync_feeds(&[kept]).await?;
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    let poll = || {
        common::gleaner_in(dir.path())
            .arg("--config")
            .arg(&config)
            .args(["poll", "--once"])
            .output()
    };

    std::fs::write(&config, format!("[database]\nurl = {:?}\n", db.url()))?;
    let refused = poll()?;
    assert!(!refused.status.success(), "{refused:?}");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("feeds = []"), "{said}");
    let feed = db.store.feed_by_name("kept").await?.context("kept")?;
    assert!(feed.active, "refused: the stored feed still runs");

    std::fs::write(
        &config,
        format!("feeds = []\n[database]\nurl = {:?}\n", db.url()),
    )?;
    let meant = poll()?;
    assert!(meant.status.success(), "{meant:?}");
    let feed = db.store.feed_by_name("kept").await?.context("kept")?;
    assert!(!feed.active, "meant: the stored feed stops");
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
        common::send_signal(&child, "TERM")?;
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

/// A token change is taken on reload: after SIGHUP the old token is refused by the JSON routes
/// and the web view's sessions signed under it end, and the new token works, without a
/// restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_takes_a_new_token_and_ends_the_old_ones_sessions() -> anyhow::Result<()> {
    let db = TestDb::sqlite().await?;
    let farm = Farm::start().await?;
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    // `[api]` closes the text: the token joins it; `feeds = []` goes before every table.
    let with_token = |token: &str| {
        format!(
            "feeds = []\n{}token = \"{token}\"\n",
            config_text(&db, &farm, &[])
        )
    };
    std::fs::write(&config, with_token("old-token-0123456789"))?;
    let log = dir.path().join("service.log");
    let mut child = spawn_logged(&config, &log)?;
    let outcome = token_reload(&config, &log, &mut child, &with_token).await;
    if outcome.is_err() {
        stop_and_show_log(&mut child, &log);
        return outcome;
    }
    stop(&mut child).await
}

async fn token_reload(
    config: &Path,
    log: &Path,
    child: &mut Child,
    with_token: &dyn Fn(&str) -> String,
) -> anyhow::Result<()> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let mut api = String::new();
    wait_until(child, "the API listens", || {
        let found = api_address(log).ok();
        if let Some(address) = &found {
            api = format!("http://{address}");
        }
        async move { anyhow::Ok(found.is_some()) }
    })
    .await?;
    let feeds_with = |token: &str| client.get(format!("{api}/feeds")).bearer_auth(token).send();
    assert_eq!(feeds_with("old-token-0123456789").await?.status(), 200);
    // A web view session under the old token.
    let form = client.get(format!("{api}/ui/login")).send().await?;
    let cookie = form
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("gleaner_login="))
        .and_then(|v| v.split(';').next())
        .context("login cookie")?
        .to_string();
    let html = form.text().await?;
    let start = html.find("name=\"csrf\" value=\"").context("csrf")? + 19;
    let csrf = html[start..]
        .split('"')
        .next()
        .context("csrf value")?
        .to_string();
    let signed_in = client
        .post(format!("{api}/ui/login"))
        .header("cookie", cookie)
        .form(&[("csrf", csrf.as_str()), ("token", "old-token-0123456789")])
        .send()
        .await?;
    assert_eq!(signed_in.status(), 303);
    let session = signed_in
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("gleaner_session="))
        .and_then(|v| v.split(';').next())
        .context("session cookie")?
        .to_string();
    let overview = || {
        client
            .get(format!("{api}/ui/"))
            .header("cookie", &session)
            .send()
    };
    assert_eq!(overview().await?.status(), 200);

    std::fs::write(config, with_token("new-token-9876543210"))?;
    common::send_signal(child, "HUP")?;
    wait_until(child, "the new token is taken", || async {
        anyhow::Ok(feeds_with("new-token-9876543210").await?.status() == 200)
    })
    .await?;
    assert_eq!(feeds_with("old-token-0123456789").await?.status(), 401);
    let after = overview().await?;
    assert_eq!(after.status(), 303, "the old session ended");
    assert_eq!(after.headers()["location"], "/ui/login");
    Ok(())
}

/// The database refuses every lease take (as on a full disk): the service retries after
/// doubling waits and says so at a bounded rate, not one line per 200 ms turn of its loop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_lease_takes_back_off_and_are_logged_at_a_bounded_rate() -> anyhow::Result<()> {
    let db = TestDb::sqlite().await?;
    let farm = Farm::start().await?;
    serve_feed(&farm, "alpha", 1);
    common::faults::raw_execute(
        &db,
        "CREATE TRIGGER refuse_take BEFORE UPDATE OF lease_owner ON feeds
         WHEN NEW.lease_owner IS NOT NULL
         BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    )
    .await?;
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&db, &farm, &["alpha"]))?;
    let log = dir.path().join("service.log");
    let mut child = spawn_logged(&config, &log)?;
    tokio::time::sleep(Duration::from_secs(6)).await;
    if let Err(error) = stop(&mut child).await {
        stop_and_show_log(&mut child, &log);
        return Err(error);
    }
    let logged = std::fs::read_to_string(&log)?;
    let lines = logged
        .lines()
        .filter(|line| line.contains("cannot lease due feeds"))
        .count();
    assert!((1..=2).contains(&lines), "{lines} lines:\n{logged}");
    assert_eq!(farm.hits("/alpha.xml"), 0, "nothing leased, nothing polled");
    Ok(())
}

/// Starts `gleaner run` on `config`, its JSON log written to `log`.
fn spawn_logged(config: &Path, log: &Path) -> anyhow::Result<std::process::Child> {
    Ok(Command::new(BINARY)
        .args(["--log-format", "json", "--config"])
        .arg(config)
        .arg("run")
        .env_remove("GLEANER_DATABASE_URL")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log)?)
        .spawn()?)
}

/// After a failed check: stops the service and prints its log.
fn stop_and_show_log(child: &mut std::process::Child, log: &Path) {
    let _ = child.kill();
    let _ = child.wait();
    eprintln!(
        "service log:\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}
