//! Webhooks end to end: a farm serves the feeds and receives the deliveries on loopback;
//! `poll_once`, then the deliveries `poll --once` sends before it exits; both databases.

use crate::common;

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use common::farm::{self, Farm, Received, Route};
use common::{TestConfig, TestDb};
use gleaner::config::Config;
use gleaner::daemon;
use gleaner::pipeline::Context;
use gleaner::store::DeliveryState;
use gleaner::webhooks::{self, Targets};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use tokio_util::sync::CancellationToken;

on_both_databases!(
    deliveries_carry_the_export_json_and_a_signature_the_receiver_verifies,
    a_delivery_answered_500_is_retried_and_delivered_once,
    each_article_is_delivered_once_across_polls,
    a_webhook_takes_only_the_feeds_it_names,
    a_webhook_that_is_down_does_not_hold_ingestion_back,
    the_service_delivers_in_the_background,
    a_delivery_given_up_is_a_failure_listed_and_counted,
    redeliver_sends_the_given_up_deliveries_once_the_receiver_is_back,
);

const HOOK: &str = "/hook";
const SECRET: &str = "s3cret-key";
const WAIT: Duration = Duration::from_secs(20);

/// A webhook to `url` with these extra keys.
fn webhook(config: TestConfig, url: String, extra: &[(&str, toml::Value)]) -> TestConfig {
    let mut keys = vec![("url", toml::Value::from(url))];
    keys.extend(extra.iter().cloned());
    config.table_array("webhooks", &keys)
}

async fn poll_and_deliver(ctx: &Context) -> anyhow::Result<i64> {
    daemon::poll_once(ctx, true, &CancellationToken::new(), |_| {}, |_| {}).await?;
    let targets = Targets::new(&ctx.config.webhooks, &ctx.fetcher);
    Ok(webhooks::deliver_pending(&ctx.store, &targets, WAIT).await?)
}

fn hex_hmac(secret: &str, body: &[u8]) -> anyhow::Result<String> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())?;
    mac.update(body);
    Ok(hex::encode(mac.finalize().into_bytes()))
}

/// The article ids of the deliveries received, in order.
fn delivered_ids(received: &[Received]) -> anyhow::Result<Vec<i64>> {
    received
        .iter()
        .map(|r| {
            let json: serde_json::Value = serde_json::from_slice(&r.body)?;
            json["id"]
                .as_i64()
                .ok_or_else(|| anyhow::anyhow!("no id in {json}"))
        })
        .collect()
}

async fn deliveries_carry_the_export_json_and_a_signature_the_receiver_verifies(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = farm.story_feed(1, 2, false, farm::html_route);
    farm.route(HOOK, farm::ok("text/plain", b"thanks".to_vec()));
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let config = webhook(
        config,
        farm.url(HOOK),
        &[("secret", toml::Value::from(SECRET))],
    );
    let ctx = daemon::prepare(config.parse()?).await?;

    assert_eq!(poll_and_deliver(&ctx).await?, 0, "nothing left pending");

    let received = farm.received(HOOK);
    assert_eq!(received.len(), 2);
    let key = ctx.config.webhooks[0].key();
    for delivery in &received {
        let expected = format!("sha256={}", hex_hmac(SECRET, &delivery.body)?);
        assert_eq!(
            delivery.header("x-gleaner-signature"),
            Some(expected.as_str())
        );
        assert_eq!(delivery.header("content-type"), Some("application/json"));
        assert_eq!(delivery.header("x-gleaner-event"), Some("article.created"));
        let json: serde_json::Value = serde_json::from_slice(&delivery.body)?;
        let id = json["id"].as_i64().unwrap_or_default();
        let expected_id = format!("{id}-{key}");
        assert_eq!(
            delivery.header("x-gleaner-delivery"),
            Some(expected_id.as_str())
        );
        let record = ctx.store.article_record(id).await?;
        let exported = serde_json::to_vec(&record)?;
        assert_eq!(delivery.body, exported, "the export's JSON, byte for byte");
    }
    Ok(())
}

async fn a_delivery_answered_500_is_retried_and_delivered_once(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = farm.story_feed(1, 1, false, farm::html_route);
    farm.route(
        HOOK,
        Route::FailsFirst {
            status: 500,
            failures: 1,
            then: Box::new(farm::ok("text/plain", b"ok".to_vec())),
        },
    );
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let config = webhook(
        config,
        farm.url(HOOK),
        &[("retry_seconds", toml::Value::from(0))],
    );
    let ctx = daemon::prepare(config.parse()?).await?;

    assert_eq!(poll_and_deliver(&ctx).await?, 0);

    let ids = delivered_ids(&farm.received(HOOK))?;
    assert_eq!(ids.len(), 2, "one 500, then the one that was taken");
    assert_eq!(ids[0], ids[1], "the same article both times");
    let deliveries = ctx.store.deliveries().await?;
    assert_eq!(deliveries.len(), 1);
    assert_eq!(deliveries[0].state, DeliveryState::Delivered.as_str());
    assert_eq!(deliveries[0].attempts, 2);
    assert!(deliveries[0].delivered_at.is_some());
    Ok(())
}

async fn each_article_is_delivered_once_across_polls(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = farm.story_feed(1, 2, false, farm::html_route);
    farm.route(HOOK, farm::ok("text/plain", b"ok".to_vec()));
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let config = webhook(config, farm.url(HOOK), &[]);
    let ctx = daemon::prepare(config.parse()?).await?;

    poll_and_deliver(&ctx).await?;
    // The feed grows by one story; the second poll stores only that one.
    farm.story_feed(1, 3, false, farm::html_route);
    poll_and_deliver(&ctx).await?;

    let ids = delivered_ids(&farm.received(HOOK))?;
    let distinct: HashSet<i64> = ids.iter().copied().collect();
    assert_eq!(ids.len(), 3, "three articles, three deliveries: {ids:?}");
    assert_eq!(distinct.len(), 3);
    Ok(())
}

async fn a_webhook_takes_only_the_feeds_it_names(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let wanted = farm.story_feed(1, 2, false, farm::html_route);
    let other = farm.story_feed(2, 2, false, farm::html_route);
    farm.route(HOOK, farm::ok("text/plain", b"ok".to_vec()));
    let config = TestConfig::new(&db)
        .loopback_farm()
        .feed("wanted", wanted)
        .feed("other", other);
    let feeds = toml::Value::Array(vec![toml::Value::from("wanted")]);
    let config = webhook(config, farm.url(HOOK), &[("feeds", feeds)]);
    let ctx = daemon::prepare(config.parse()?).await?;

    poll_and_deliver(&ctx).await?;

    let received = farm.received(HOOK);
    assert_eq!(received.len(), 2);
    for delivery in &received {
        let json: serde_json::Value = serde_json::from_slice(&delivery.body)?;
        assert_eq!(json["feed"], "wanted");
    }
    Ok(())
}

async fn a_webhook_that_is_down_does_not_hold_ingestion_back(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = farm.story_feed(1, 3, false, farm::html_route);
    // A port nobody listens on any more.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await?
        .local_addr()?;
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let config = webhook(config, format!("http://{closed}/hook"), &[]);
    let ctx = daemon::prepare(config.parse()?).await?;

    let summary = daemon::poll_once(&ctx, true, &CancellationToken::new(), |_| {}, |_| {}).await?;
    assert_eq!(summary.new_articles, 3, "every article stored");
    let targets = Targets::new(&ctx.config.webhooks, &ctx.fetcher);
    let pending = webhooks::deliver_pending(&ctx.store, &targets, Duration::from_secs(1)).await?;
    assert_eq!(pending, 3, "each delivery waits for its retry");
    for delivery in ctx.store.deliveries().await? {
        assert_eq!(delivery.state, DeliveryState::Pending.as_str());
        assert_eq!(delivery.attempts, 1);
        assert!(delivery.last_error.is_some());
    }
    Ok(())
}

async fn the_service_delivers_in_the_background(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = farm.story_feed(1, 2, false, farm::html_route);
    farm.route(HOOK, farm::ok("text/plain", b"ok".to_vec()));
    let dir = tempfile::tempdir()?;
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let path = webhook(config, farm.url(HOOK), &[]).write(dir.path())?;
    let shutdown = CancellationToken::new();
    let (_reload, reload_rx) = tokio::sync::mpsc::channel(1);
    let service = tokio::spawn(daemon::run(
        path.clone(),
        Config::load(&path)?,
        shutdown.clone(),
        reload_rx,
    ));

    let waited = tokio::time::timeout(WAIT, async {
        while farm.received(HOOK).len() < 2 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    shutdown.cancel();
    service.await??;
    anyhow::ensure!(waited.is_ok(), "the service delivered both articles");
    assert_eq!(farm.received(HOOK).len(), 2);
    Ok(())
}

/// The value of the unlabelled counter `name` in this process's metrics.
fn counter(name: &str) -> Option<f64> {
    gleaner::metrics::render()
        .finish()
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

async fn a_delivery_given_up_is_a_failure_listed_and_counted(db: TestDb) -> anyhow::Result<()> {
    const GIVEN_UP: &str = "gleaner_webhook_deliveries_given_up_total";
    let farm = Farm::start().await?;
    let feed = farm.story_feed(1, 1, false, farm::html_route);
    farm.route(
        HOOK,
        Route::Status {
            status: 500,
            headers: Vec::new(),
            body: "down".to_string(),
        },
    );
    let dir = tempfile::tempdir()?;
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let config = webhook(
        config,
        farm.url(HOOK),
        &[
            ("retry_seconds", toml::Value::from(0)),
            ("max_attempts", toml::Value::from(2)),
        ],
    );
    config.write(dir.path())?;
    let ctx = daemon::prepare(config.parse()?).await?;
    let before = counter(GIVEN_UP).unwrap_or_default();

    assert_eq!(poll_and_deliver(&ctx).await?, 0, "given up, not pending");

    assert_eq!(farm.received(HOOK).len(), 2, "both attempts were made");
    let deliveries = ctx.store.deliveries().await?;
    assert_eq!(deliveries[0].state, DeliveryState::Failed.as_str());
    let after = counter(GIVEN_UP).unwrap_or_default();
    assert!(after >= before + 1.0, "{GIVEN_UP}: {before} then {after}");

    let output = common::gleaner_in(dir.path())
        .args(["failures", "--stage", "webhook", "--json"])
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let rows = rows.as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let article = deliveries[0].article_id;
    let key = ctx.config.webhooks[0].key();
    assert_eq!(rows[0]["stage"], "webhook");
    assert_eq!(rows[0]["kind"], "given_up");
    assert_eq!(rows[0]["feed"], "news");
    let message = rows[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "webhook {key} article {article}: given up after 2 attempts"
        )),
        "{message}"
    );
    let url = ctx.store.article_record(article).await?.map(|r| r.url);
    assert_eq!(rows[0]["article_url"].as_str(), url.as_deref());

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let listen = listener.local_addr()?;
    let stop = CancellationToken::new();
    let server = tokio::spawn(gleaner::api::serve(
        listener,
        ctx.store.clone(),
        gleaner::config::ApiConfig::new(listen, None),
        stop.clone(),
    ));
    let client = reqwest::Client::builder().no_proxy().build()?;
    let body = client
        .get(format!("http://{listen}/healthz"))
        .send()
        .await?
        .text()
        .await?;
    let health: serde_json::Value = serde_json::from_str(&body)?;
    stop.cancel();
    server.await??;
    assert_eq!(health["webhook_deliveries_given_up_24h"], 1, "{health}");
    Ok(())
}

/// `gleaner failures --stage webhook --json`, run in `dir`.
fn webhook_failures(dir: &Path) -> anyhow::Result<Vec<serde_json::Value>> {
    let output = common::gleaner_in(dir)
        .args(["failures", "--stage", "webhook", "--json"])
        .output()?;
    anyhow::ensure!(output.status.success(), "{output:?}");
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    Ok(rows.as_array().cloned().unwrap_or_default())
}

async fn redeliver_sends_the_given_up_deliveries_once_the_receiver_is_back(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = farm.story_feed(1, 1, false, farm::html_route);
    farm.route(
        HOOK,
        Route::Status {
            status: 500,
            headers: Vec::new(),
            body: "down".to_string(),
        },
    );
    let dir = tempfile::tempdir()?;
    let config = TestConfig::new(&db).loopback_farm().feed("news", feed);
    let config = webhook(
        config,
        farm.url(HOOK),
        &[
            ("retry_seconds", toml::Value::from(0)),
            ("max_attempts", toml::Value::from(1)),
        ],
    );
    config.write(dir.path())?;
    let ctx = daemon::prepare(config.parse()?).await?;
    poll_and_deliver(&ctx).await?;
    assert_eq!(webhook_failures(dir.path())?.len(), 1, "given up");
    let article = ctx.store.deliveries().await?[0].article_id;

    let unknown = common::gleaner_in(dir.path())
        .args(["webhooks", "redeliver", "--webhook", "nope"])
        .output()?;
    assert_eq!(unknown.status.code(), Some(2), "{unknown:?}");

    farm.route(HOOK, farm::ok("text/plain", b"ok".to_vec()));
    let key = ctx.config.webhooks[0].key();
    let output = common::gleaner_in(dir.path())
        .args([
            "webhooks",
            "redeliver",
            "--webhook",
            &key,
            "--since",
            "2000-01-01",
        ])
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.trim(),
        "requeued=1 delivered=1 given_up=0 pending=0 skipped=0"
    );

    let ids = delivered_ids(&farm.received(HOOK))?;
    assert_eq!(ids, vec![article, article], "the 500, then the redelivery");
    assert!(webhook_failures(dir.path())?.is_empty(), "resolved");
    let deliveries = ctx.store.deliveries().await?;
    assert_eq!(deliveries[0].state, DeliveryState::Delivered.as_str());

    // Nothing left to send: a second run requeues nothing.
    let again = common::gleaner_in(dir.path())
        .args(["webhooks", "redeliver"])
        .output()?;
    assert!(again.status.success(), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stdout).starts_with("requeued=0 "));
    Ok(())
}

#[test]
fn a_webhook_naming_an_unknown_feed_is_refused_with_its_place() {
    let text = "[[feeds]]\nname = \"news\"\nurl = \"https://example.com/rss\"\n\n\
                [[webhooks]]\nurl = \"https://hooks.example.com/in\"\nfeeds = [\"news\", \"nope\"]\n";
    let error = Config::parse(text, Path::new("config.toml"), None)
        .expect_err("refused")
        .to_string();
    assert!(error.starts_with("config.toml:7:18:"), "{error}");
    assert!(error.contains("no feed is named `nope`"), "{error}");
}

#[test]
fn a_webhook_secret_never_shows_in_debug_output() -> anyhow::Result<()> {
    let text = "[[webhooks]]\nurl = \"https://hooks.example.com/in\"\nsecret = \"hunter2\"\n";
    let config = Config::parse(text, Path::new("config.toml"), None)?;
    assert!(!format!("{config:?}").contains("hunter2"));
    assert_eq!(config.webhooks[0].secret.as_deref(), Some("hunter2"));
    Ok(())
}
