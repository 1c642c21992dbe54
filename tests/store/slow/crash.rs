//! Crash safety: `kill -9` of `gleaner run` at random moments of a poll, again and again,
//! then a restart. Nothing may be half-written (every article has its text and its image),
//! nothing duplicated, nothing lost, on both databases.

use crate::common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::TestDb;
use common::farm::{self, Farm};

on_both_databases!(kill_9_mid_poll_loses_and_duplicates_nothing);

const BINARY: &str = env!("CARGO_BIN_EXE_gleaner");
const FEEDS: usize = 6;
const ARTICLES: usize = 15;
/// A killed process gives no lease back: its feeds wait this long for the next one.
const LEASE_SECONDS: u64 = 2;

fn spawn(config: &std::path::Path) -> anyhow::Result<Child> {
    Ok(Command::new(BINARY)
        .arg("--config")
        .arg(config)
        .arg("run")
        .env_remove("GLEANER_DATABASE_URL")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?)
}

/// Every stored article is whole: text, HTML and exactly its one image.
async fn check_whole(db: &TestDb) -> anyhow::Result<usize> {
    let rows = common::distinct_articles(&db.store).await?;
    for row in &rows {
        let article = db
            .store
            .article(row.id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("row vanished"))?;
        anyhow::ensure!(
            article.text.contains("Paragraph 0 of story"),
            "article {} has no text",
            row.id
        );
        let images = db.store.article_images(row.id).await?;
        anyhow::ensure!(
            images.len() == 1,
            "article {} has {} images",
            row.id,
            images.len()
        );
        anyhow::ensure!(
            images[0].sha256.is_some(),
            "article {} lost its image bytes",
            row.id
        );
    }
    Ok(rows.len())
}

async fn kill_9_mid_poll_loses_and_duplicates_nothing(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let mut text = format!(
        "[database]\nurl = \"{}\"\n[schedule]\ndefault = \"*/1 * * * * *\"\njitter_seconds = 0\n\
         [fetch]\nallow_private_networks = true\nper_host_delay_ms = 0\nrespect_robots_txt = false\n\
         per_host_concurrency = 4\n[daemon]\nfeed_lease_seconds = {LEASE_SECONDS}\n",
        db.url()
    );
    for feed in 0..FEEDS {
        let url = farm.story_feed(feed, ARTICLES, true, farm::html_route);
        text.push_str(&format!("[[feeds]]\nname = \"f{feed}\"\nurl = \"{url}\"\n"));
    }
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    std::fs::write(&config, text)?;

    // Kill at pseudo-random moments (a fixed-seed LCG: failures are reproducible).
    let mut seed: u64 = 0x5eed_1234;
    for round in 0..6 {
        let mut child = spawn(&config)?;
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let wait = Duration::from_millis(150 + (seed >> 33) % 900);
        tokio::time::sleep(wait).await;
        child.kill()?; // SIGKILL
        child.wait()?;
        let stored = check_whole(&db).await?;
        eprintln!("round {round}: killed after {wait:?}, {stored} whole articles");
        // Let the leases of the killed process lapse, so that the next one polls at once.
        tokio::time::sleep(Duration::from_secs(LEASE_SECONDS)).await;
    }

    // A last run completes the work: every article exactly once.
    let mut child = spawn(&config)?;
    let deadline = Instant::now() + Duration::from_secs(60);
    let outcome = loop {
        let stored = check_whole(&db).await?;
        if stored == FEEDS * ARTICLES {
            break Ok(());
        }
        if Instant::now() > deadline {
            break Err(anyhow::anyhow!(
                "only {stored} of {} articles after restart",
                FEEDS * ARTICLES
            ));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    child.kill()?;
    child.wait()?;
    outcome?;
    let feeds = db.store.feeds().await?;
    assert!(
        feeds.iter().all(|f| f.articles == ARTICLES as i64),
        "{feeds:#?}"
    );
    Ok(())
}
