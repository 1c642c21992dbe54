//! Several `gleaner run` replicas on one database share the feeds: every article is stored
//! once and downloaded once, and `kill -9` of one replica mid-run loses nothing, because its
//! feed leases lapse and the others take its feeds over. Run on PostgreSQL (the deployment
//! this is for) and on SQLite (several processes on one file).

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::TestDb;
use common::farm::{self, Farm, Route};

on_both_databases!(replicas_share_the_work_and_survive_a_kill);

const BINARY: &str = env!("CARGO_BIN_EXE_gleaner");
const REPLICAS: usize = 3;
const FEEDS: usize = 12;
const ARTICLES: usize = 10;
/// Feeds a replica polls at once, and entries a poll downloads at once (the pipeline's fixed
/// width): together, how many pages a killed replica may have had in flight.
const FEEDS_PER_REPLICA: usize = 2;
const ENTRIES_PER_POLL: usize = 4;
const LEASE_SECONDS: u64 = 2;
const HOSTS: [&str; 4] = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"];

fn spawn(config: &Path, log: &Path) -> anyhow::Result<Child> {
    Ok(Command::new(BINARY)
        .arg("--config")
        .arg(config)
        .args(["--log-format", "json", "run"])
        .env_remove("GLEANER_DATABASE_URL")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log)?)
        .spawn()?)
}

/// The articles a replica stored, from the `feed polled` lines of its log.
fn stored_by(log: &Path) -> anyhow::Result<usize> {
    let text = std::fs::read_to_string(log)?;
    Ok(text
        .lines()
        .filter(|line| line.contains("feed polled"))
        .filter_map(|line| line.split("\"new_articles\":").nth(1))
        .filter_map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .filter_map(|count| count.parse::<usize>().ok())
        .sum())
}

/// How many articles are stored, after checking that none is stored twice.
async fn stored(db: &TestDb) -> anyhow::Result<usize> {
    Ok(common::distinct_articles(&db.store).await?.len())
}

async fn wait_for(
    db: &TestDb,
    articles: usize,
    within: Duration,
    replicas: &mut [Child],
) -> anyhow::Result<usize> {
    let deadline = Instant::now() + within;
    loop {
        let count = stored(db).await?;
        if count >= articles {
            return Ok(count);
        }
        for replica in replicas.iter_mut() {
            if let Some(status) = replica.try_wait()? {
                anyhow::bail!("a replica exited early with {status}");
            }
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "{count} of {articles} articles stored after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn replicas_share_the_work_and_survive_a_kill(db: TestDb) -> anyhow::Result<()> {
    // Four hosts: a replica polling a feed keeps the others off that feed's host.
    let mut farms = Vec::new();
    for ip in HOSTS {
        farms.push(Farm::start_on(ip).await?);
    }
    // Every feed is due every second, so without leases every replica would poll every feed.
    let mut text = format!(
        "[database]\nurl = \"{}\"\n[schedule]\ndefault = \"*/1 * * * * *\"\njitter_seconds = 0\n\
         [fetch]\nallow_private_networks = true\nper_host_delay_ms = 0\nrespect_robots_txt = false\n\
         concurrency = {FEEDS_PER_REPLICA}\nper_host_concurrency = 16\n\
         [images]\ndownload = false\n[daemon]\nfeed_lease_seconds = {LEASE_SECONDS}\n",
        db.url()
    );
    for feed in 0..FEEDS {
        // Slow pages keep polls overlapping, so replicas really race for the feeds.
        let url = farms[feed % farms.len()].story_feed(feed, ARTICLES, false, |html| {
            Route::Delayed(Duration::from_millis(150), Box::new(farm::html_route(html)))
        });
        text.push_str(&format!("[[feeds]]\nname = \"f{feed}\"\nurl = \"{url}\"\n"));
    }
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    std::fs::write(&config, text)?;

    let total = FEEDS * ARTICLES;
    let logs: Vec<_> = (0..REPLICAS)
        .map(|n| dir.path().join(format!("replica-{n}.log")))
        .collect();
    let mut replicas = logs
        .iter()
        .map(|log| spawn(&config, log))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let outcome = async {
        let before_kill = wait_for(&db, total / 4, Duration::from_secs(60), &mut replicas).await?;
        replicas[0].kill()?; // SIGKILL: no lease is given back
        replicas[0].wait()?;
        let after_kill = stored(&db).await?;
        anyhow::ensure!(
            after_kill < total,
            "the kill came too late to test a takeover ({after_kill} of {total} stored)"
        );
        eprintln!("killed one replica with {before_kill}..{after_kill} of {total} stored");
        wait_for(&db, total, Duration::from_secs(90), &mut replicas[1..]).await?;
        anyhow::Ok(())
    }
    .await;
    for replica in &mut replicas[1..] {
        // SIGTERM: a graceful stop, which gives the leases back.
        let _ = Command::new("kill").arg(replica.id().to_string()).status();
    }
    for replica in &mut replicas {
        replica.wait()?;
    }
    outcome?;

    assert_eq!(stored(&db).await?, total);
    // The survivors shared the work (the killed replica's log may end mid-line).
    let shares = logs
        .iter()
        .map(|log| stored_by(log))
        .collect::<anyhow::Result<Vec<_>>>()?;
    eprintln!("articles stored per replica: {shares:?}");
    assert!(
        shares[1..].iter().all(|&share| share > 0),
        "a surviving replica stored nothing: {shares:?}"
    );
    let feeds = db.store.feeds().await?;
    assert!(
        feeds.iter().all(|f| f.articles == ARTICLES as i64),
        "{feeds:#?}"
    );
    // Every page was downloaded once, but for the pages the killed replica had in flight.
    let mut missed = Vec::new();
    let mut downloads = 0;
    for id in (0..FEEDS).flat_map(|feed| (0..ARTICLES).map(move |n| feed * 100 + n)) {
        let hits = farms[id / 100 % farms.len()].hits(&farm::story_path(id));
        if hits == 0 {
            missed.push(id);
        }
        downloads += hits;
    }
    assert!(missed.is_empty(), "pages never downloaded: {missed:?}");
    let extra = downloads - total;
    eprintln!("{downloads} page downloads for {total} articles");
    assert!(
        extra <= FEEDS_PER_REPLICA * ENTRIES_PER_POLL,
        "{extra} pages downloaded more than once"
    );
    // The graceful stops left no lease behind: every feed can be leased at once.
    let now = gleaner::store::db_time(chrono::Utc::now());
    let free = db.store.lease_feeds("check", now, now, 1_000, true).await?;
    assert_eq!(free.len(), FEEDS);
    Ok(())
}
