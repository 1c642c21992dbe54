//! A poll stopped by SIGTERM gives its feeds back: `poll --once` and `gleaner run` (the real
//! binary) stopped mid-poll, then started again at once, store every article long before the
//! stopped process's leases would have lapsed. A feed another process holds is reported by
//! `poll --once` (`status=leased`, the holder, until when; `leased=N` in the totals), never
//! passed over in silence.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::farm::{self, Farm, Route};
use common::{TestConfig, TestDb};

on_both_databases!(
    a_poll_stopped_by_sigterm_gives_its_feeds_back,
    a_service_stopped_by_sigterm_gives_its_feeds_back,
    a_poll_says_which_feeds_another_process_holds,
);

/// Stories per feed; each page answers after [`PAGE_DELAY`].
const STORIES: usize = 8;
const PAGE_DELAY: Duration = Duration::from_millis(1000);
/// Far longer than the test waits: a feed whose lease was not given back is not polled again.
const LEASE_SECONDS: i64 = 600;

/// Two feeds of slow pages on one farm, polled one feed at a time.
fn slow_farm_config(db: &TestDb, farm: &Farm) -> TestConfig {
    let slow = |html| Route::Delayed(PAGE_DELAY, Box::new(farm::html_route(html)));
    TestConfig::new(db)
        .loopback_farm()
        .set("fetch", "concurrency", 1)
        .set("fetch", "per_host_concurrency", 4)
        .set("fetch", "timeout_seconds", 10)
        .set("schedule", "default", "*/1 * * * * *")
        .set("schedule", "jitter_seconds", 0)
        .set("daemon", "shutdown_grace_seconds", 5)
        .set("daemon", "feed_lease_seconds", LEASE_SECONDS)
        .feed("one", farm.story_feed(1, STORIES, false, slow))
        .feed("two", farm.story_feed(2, STORIES, false, slow))
}

fn gleaner(config: &Path, args: &[&str]) -> Command {
    let mut command = common::gleaner_in(config.parent().unwrap_or(Path::new(".")));
    command.arg("--config").arg(config).args(args);
    command
}

/// Waits until the farm has been asked for a story page: the poll is under way.
async fn wait_for_a_page_request(farm: &Farm, child: &mut Child) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let requested = || {
        (1..=2).any(|feed| (0..STORIES).any(|n| farm.hits(&farm::story_path(feed * 100 + n)) > 0))
    };
    while !requested() {
        anyhow::ensure!(child.try_wait()?.is_none(), "the process exited early");
        anyhow::ensure!(Instant::now() < deadline, "no page was requested in time");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Waits for the process to exit, within a deadline.
async fn exit_status(child: &mut Child) -> anyhow::Result<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            anyhow::bail!("the process outlived SIGTERM and its grace period");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn stored(db: &TestDb) -> anyhow::Result<usize> {
    Ok(common::distinct_articles(&db.store).await?.len())
}

/// `poll --once --all` stopped by SIGTERM mid-poll exits 1 saying so; a second run started at
/// once takes both feeds and stores every article.
async fn a_poll_stopped_by_sigterm_gives_its_feeds_back(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let dir = tempfile::tempdir()?;
    let config = slow_farm_config(&db, &farm).write(dir.path())?;
    let mut first = gleaner(&config, &["poll", "--once", "--all"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    wait_for_a_page_request(&farm, &mut first).await?;
    common::send_signal(&first, "TERM")?;
    let status = exit_status(&mut first).await?;
    assert_eq!(status.code(), Some(1), "a stopped cycle is not a success");
    let after_first = stored(&db).await?;
    assert!(
        after_first < 2 * STORIES,
        "the first poll was to be stopped mid-way; it stored {after_first}"
    );

    let second = gleaner(&config, &["poll", "--once", "--all"]).output()?;
    let out = String::from_utf8_lossy(&second.stdout);
    assert!(
        second.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(
        out.contains("feeds=2 ") && out.contains("leased=0 "),
        "{out}"
    );
    assert_eq!(stored(&db).await?, 2 * STORIES, "{out}");
    Ok(())
}

/// `gleaner run` stopped by SIGTERM mid-poll (as `systemctl restart` does) and started again
/// at once polls the feeds at once: every article is stored well before the stopped
/// process's leases would lapse.
async fn a_service_stopped_by_sigterm_gives_its_feeds_back(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let dir = tempfile::tempdir()?;
    let config = slow_farm_config(&db, &farm).write(dir.path())?;
    let spawn = || {
        gleaner(&config, &["run"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
    };
    let mut first = spawn()?;
    wait_for_a_page_request(&farm, &mut first).await?;
    common::send_signal(&first, "TERM")?;
    assert!(exit_status(&mut first).await?.success());
    assert!(stored(&db).await? < 2 * STORIES, "stopped mid-way");

    let mut second = spawn()?;
    let outcome = async {
        let deadline = Instant::now() + Duration::from_secs(60);
        while stored(&db).await? < 2 * STORIES {
            anyhow::ensure!(second.try_wait()?.is_none(), "the service exited early");
            anyhow::ensure!(
                Instant::now() < deadline,
                "the restarted service did not take the feeds back in time"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }
    .await;
    let _ = common::send_signal(&second, "TERM");
    let _ = exit_status(&mut second).await;
    outcome
}

/// One feed held by a live process elsewhere: `poll --once` polls the other, prints the held
/// one as `status=leased` with its holder and lease end, counts it in `leased=1`, and says so
/// in the JSON lines too.
async fn a_poll_says_which_feeds_another_process_holds(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let other_host = Farm::start_on("127.0.0.2").await?;
    let dir = tempfile::tempdir()?;
    let config = TestConfig::new(&db)
        .loopback_farm()
        .feed("mine", farm.story_feed(1, 2, false, farm::html_route))
        .feed(
            "theirs",
            other_host.story_feed(2, 2, false, farm::html_route),
        )
        .write(dir.path())?;
    // Register the feeds, then hand one to a replica that is alive and renewing.
    let first = gleaner(&config, &["poll", "--once", "--all"]).output()?;
    assert!(first.status.success());
    let until = chrono::Utc::now() + chrono::Duration::seconds(LEASE_SECONDS);
    common::faults::set_lease(&db, "theirs", Some(("replica-b/42/cafe", until))).await?;

    let text = gleaner(&config, &["poll", "--once", "--all"]).output()?;
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(text.status.success(), "{out}");
    let theirs = out
        .lines()
        .find(|line| line.starts_with("feed=theirs "))
        .unwrap_or_default();
    assert!(theirs.contains("status=leased"), "{out}");
    assert!(theirs.contains("holder=replica-b/42/cafe"), "{out}");
    let until_text =
        gleaner::store::db_time(until).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    assert!(theirs.contains(&format!("until={until_text}")), "{out}");
    assert!(out.contains("feed=mine status=ok"), "{out}");
    assert!(
        out.contains("feeds=1 ") && out.contains("leased=1 "),
        "{out}"
    );

    let json = gleaner(&config, &["poll", "--once", "--all", "--json"]).output()?;
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let held = lines
        .iter()
        .find(|line| line["feed"] == "theirs")
        .ok_or_else(|| anyhow::anyhow!("no line for the held feed"))?;
    assert_eq!(held["status"], "leased");
    assert_eq!(held["holder"], "replica-b/42/cafe");
    let total = lines
        .iter()
        .find(|line| line["total"] == true)
        .ok_or_else(|| anyhow::anyhow!("no totals line"))?;
    assert_eq!(total["leased"], 1);
    Ok(())
}
