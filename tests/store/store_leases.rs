//! Feed leases, on both backends: processes sharing one database never poll the same feed at
//! once, a lease that is not renewed lets the feed move on, only the feeds being polled are
//! renewed, a lease that could not be given back lapses and is given back at the next take,
//! and a feed nobody polls becomes overdue.

use crate::common;

use std::collections::BTreeSet;
use std::time::Instant;

use chrono::{Duration, Utc};
use common::{TestConfig, TestDb};
use gleaner::config::FeedConfig;
use gleaner::daemon::FeedLeases;
use gleaner::schedule::CronSchedule;
use gleaner::store::{FeedPoll, Store, db_time, now, overdue_since};

on_both_backends!(
    concurrent_claimers_get_disjoint_feeds,
    a_held_lease_keeps_others_out_until_it_lapses,
    renewed_and_released_leases,
    only_the_feeds_named_are_renewed,
    leasing_follows_the_schedule,
    one_host_is_polled_from_one_replica_at_a_time,
    feeds_nobody_polls_for_three_firings_are_overdue,
    a_feed_without_a_next_due_time_is_overdue_too,
);

mod with_leases {
    use super::*;
    on_both_databases!(
        a_lease_that_could_not_be_given_back_lapses,
        a_lease_that_could_not_be_given_back_goes_back_at_the_next_take,
        a_late_release_never_frees_a_lease_taken_since,
    );
}

const FEEDS: usize = 24;

/// `count` feeds, each on a host of its own.
async fn some_feeds(store: &Store, count: usize) -> anyhow::Result<Vec<i64>> {
    let urls: Vec<String> = (0..count)
        .map(|n| format!("https://site{n}.example.org/feed.xml"))
        .collect();
    feeds_at(store, &urls).await
}

async fn feeds_at(store: &Store, urls: &[String]) -> anyhow::Result<Vec<i64>> {
    let configs: Vec<FeedConfig> = urls
        .iter()
        .enumerate()
        .map(|(n, url)| {
            FeedConfig::new(
                &format!("feed-{n:02}"),
                url.parse().expect("test URL"),
                CronSchedule::parse("*/15 * * * *").expect("test schedule"),
            )
        })
        .collect();
    Ok(store
        .sync_feeds(&configs)
        .await?
        .iter()
        .map(|f| f.id)
        .collect())
}

fn ids(feeds: &[gleaner::store::FeedRecord]) -> BTreeSet<i64> {
    feeds.iter().map(|f| f.id).collect()
}

async fn concurrent_claimers_get_disjoint_feeds(store: Store) -> anyhow::Result<()> {
    let all = some_feeds(&store, FEEDS).await?;
    let until = db_time(Utc::now() + Duration::hours(1));
    let claimers = (0..4).map(|n| {
        let store = store.clone();
        tokio::spawn(async move {
            let owner = format!("replica-{n}");
            let mut held = Vec::new();
            loop {
                let got = store
                    .lease_feeds(&owner, db_time(Utc::now()), until, 2, false)
                    .await?;
                if got.is_empty() {
                    return anyhow::Ok(held);
                }
                held.extend(got.into_iter().map(|f| f.id));
                tokio::task::yield_now().await;
            }
        })
    });
    let mut seen = BTreeSet::new();
    let mut per_claimer = Vec::new();
    for claimer in claimers {
        let held = claimer.await??;
        per_claimer.push(held.len());
        for id in held {
            assert!(seen.insert(id), "feed {id} leased twice");
        }
    }
    assert_eq!(seen, all.iter().copied().collect(), "{per_claimer:?}");
    Ok(())
}

async fn a_held_lease_keeps_others_out_until_it_lapses(store: Store) -> anyhow::Result<()> {
    let all = some_feeds(&store, 3).await?;
    let now = db_time(Utc::now());
    let until = now + Duration::seconds(30);
    let first = store.lease_feeds("a", now, until, 10, false).await?;
    assert_eq!(ids(&first), all.iter().copied().collect());
    assert!(
        store
            .lease_feeds("b", now, until, 10, true)
            .await?
            .is_empty(),
        "held feeds are not handed out, even to `all`"
    );
    assert!(
        store
            .lease_feeds("a", now, until, 10, false)
            .await?
            .is_empty(),
        "nor twice to their holder"
    );
    // Thirty seconds on, nobody renewed: the feeds move on.
    let later = until + Duration::seconds(1);
    let moved = store
        .lease_feeds("b", later, later + Duration::seconds(30), 10, false)
        .await?;
    assert_eq!(ids(&moved), all.iter().copied().collect());
    Ok(())
}

async fn renewed_and_released_leases(store: Store) -> anyhow::Result<()> {
    let all = some_feeds(&store, 3).await?;
    let now = db_time(Utc::now());
    store
        .lease_feeds("a", now, now + Duration::seconds(30), 10, false)
        .await?;
    assert_eq!(
        store
            .renew_feed_leases("a", &all, now + Duration::seconds(90))
            .await?,
        3
    );
    assert_eq!(store.renew_feed_leases("b", &all, now).await?, 0);
    // Renewed: still held after the first lease would have lapsed.
    let at = now + Duration::seconds(60);
    assert!(store.lease_feeds("b", at, at, 10, false).await?.is_empty());
    // Another owner cannot give a feed back; its holder can, one (by the lease's generation:
    // a feed's first lease is the first generation) or all.
    store.release_feed_leases("b", Some((all[0], 1))).await?;
    assert!(
        store
            .lease_feeds("b", now, now, 10, false)
            .await?
            .is_empty()
    );
    store.release_feed_leases("a", Some((all[0], 1))).await?;
    assert_eq!(
        ids(&store
            .lease_feeds("b", now, now + Duration::seconds(30), 10, false)
            .await?),
        BTreeSet::from([all[0]])
    );
    store.release_feed_leases("a", None).await?;
    assert_eq!(store.renew_feed_leases("a", &all, now).await?, 0);
    assert_eq!(
        ids(&store.lease_feeds("c", now, now, 10, false).await?),
        all[1..].iter().copied().collect()
    );
    Ok(())
}

/// A lease the holder no longer polls under (its release failed) is not renewed with the
/// others: it lapses, and the feed moves on.
async fn only_the_feeds_named_are_renewed(store: Store) -> anyhow::Result<()> {
    let all = some_feeds(&store, 3).await?;
    let now = db_time(Utc::now());
    store
        .lease_feeds("a", now, now + Duration::seconds(30), 10, false)
        .await?;
    let renewed = store
        .renew_feed_leases("a", &all[..1], now + Duration::seconds(90))
        .await?;
    assert_eq!(renewed, 1);
    assert_eq!(store.renew_feed_leases("a", &[], now).await?, 0);
    let at = now + Duration::seconds(60);
    let moved = store
        .lease_feeds("b", at, at + Duration::seconds(30), 10, false)
        .await?;
    assert_eq!(ids(&moved), all[1..].iter().copied().collect());
    Ok(())
}

async fn leasing_follows_the_schedule(store: Store) -> anyhow::Result<()> {
    let all = some_feeds(&store, 3).await?;
    let now = db_time(Utc::now());
    let next = now + Duration::minutes(15);
    for &id in &all[1..] {
        let poll = FeedPoll {
            polled_at: now,
            status: gleaner::store::PollStatus::Ok,
            error: None,
            etag: None,
            last_modified: None,
            title: None,
            site_url: None,
            next_due_at: next,
        };
        store.record_feed_poll(id, &poll).await?;
    }
    // Never polled first; the others are not due yet.
    let due = store.lease_feeds("a", now, now, 10, false).await?;
    assert_eq!(ids(&due), BTreeSet::from([all[0]]));
    // `all` takes every active feed, due or not, that nobody holds.
    let every = store.lease_feeds("b", now, now, 10, true).await?;
    assert_eq!(ids(&every), all.iter().copied().collect());
    // Another replica's lease running past the due time delays the next one.
    let held_until = next + Duration::minutes(5);
    store.release_feed_leases("b", None).await?;
    store.lease_feeds("c", now, held_until, 10, true).await?;
    assert_eq!(store.next_due().await?, Some(held_until));
    store.release_feed_leases("c", None).await?;
    assert_eq!(store.next_due().await?, Some(next));
    Ok(())
}

async fn one_host_is_polled_from_one_replica_at_a_time(store: Store) -> anyhow::Result<()> {
    let urls = [
        "https://news.example.org/world.xml",
        "https://NEWS.example.org/sport.xml",
        "https://blog.example.net/feed.xml",
    ]
    .map(String::from);
    let feeds = feeds_at(&store, &urls).await?;
    let now = db_time(Utc::now());
    let until = now + Duration::seconds(30);
    let first = store.lease_feeds("a", now, until, 1, false).await?;
    assert_eq!(ids(&first), BTreeSet::from([feeds[0]]));
    // The other feed of that host waits while "a" holds one; its holder may take it.
    let second = store.lease_feeds("b", now, until, 10, false).await?;
    assert_eq!(ids(&second), BTreeSet::from([feeds[2]]));
    let third = store.lease_feeds("a", now, until, 10, false).await?;
    assert_eq!(ids(&third), BTreeSet::from([feeds[1]]));
    store.release_feed_leases("a", None).await?;
    // A lapsed lease no longer holds the host.
    store.lease_feeds("a", now, now, 1, false).await?;
    let after = store.lease_feeds("b", now, until, 10, false).await?;
    assert_eq!(ids(&after), BTreeSet::from([feeds[0], feeds[1]]));
    Ok(())
}

/// A feed polled last at `polled_at`, due again at `due`.
fn polled(polled_at: chrono::DateTime<Utc>, due: chrono::DateTime<Utc>) -> FeedPoll {
    FeedPoll {
        polled_at,
        status: gleaner::store::PollStatus::Ok,
        error: None,
        etag: None,
        last_modified: None,
        title: None,
        site_url: None,
        next_due_at: due,
    }
}

async fn feeds_nobody_polls_for_three_firings_are_overdue(store: Store) -> anyhow::Result<()> {
    let all = some_feeds(&store, 4).await?;
    // Every 15 minutes: 50 minutes past due is three firings, 20 minutes one.
    let now = db_time(Utc::now());
    let long_ago = now - Duration::minutes(50);
    store
        .record_feed_poll(all[0], &polled(long_ago, long_ago))
        .await?;
    let lately = now - Duration::minutes(20);
    store
        .record_feed_poll(all[1], &polled(lately, lately))
        .await?;
    let ahead = now + Duration::minutes(5);
    store.record_feed_poll(all[2], &polled(now, ahead)).await?;
    // all[3] was never polled: nothing says it is late.
    let overdue = store.overdue_feeds(now).await?;
    assert_eq!(overdue.len(), 1, "{overdue:?}");
    assert_eq!(overdue[0].name, "feed-00");
    assert_eq!(overdue[0].due_since, long_ago);

    assert_eq!(
        overdue_since("*/15 * * * *", Some(long_ago), now),
        Some(long_ago)
    );
    assert_eq!(overdue_since("*/15 * * * *", Some(lately), now), None);
    assert_eq!(overdue_since("*/15 * * * *", None, now), None);
    assert_eq!(overdue_since("not a schedule", Some(long_ago), now), None);

    // An inactive feed is nobody's business.
    let configs: Vec<FeedConfig> = store
        .feeds()
        .await?
        .into_iter()
        .filter(|feed| feed.id != all[0])
        .map(|feed| {
            FeedConfig::new(
                &feed.name,
                feed.url.parse().expect("stored URL"),
                CronSchedule::parse(&feed.schedule).expect("stored schedule"),
            )
        })
        .collect();
    store.sync_feeds(&configs).await?;
    assert!(store.overdue_feeds(now).await?.is_empty());
    Ok(())
}

/// A process's leases over `db`, `lease_seconds` long, holding its one feed; the feed's id.
async fn holding_one_feed(db: &TestDb, lease_seconds: i64) -> anyhow::Result<(FeedLeases, i64)> {
    let config = TestConfig::new(db)
        .feed("news", "https://news.example.org/feed.xml")
        .set("daemon", "feed_lease_seconds", lease_seconds)
        .parse()?;
    let ctx = gleaner::daemon::prepare(config).await?;
    let leases = FeedLeases::new(&ctx);
    let taken = leases.take(10, true).await?;
    anyhow::ensure!(taken.len() == 1, "took {taken:?}");
    assert_eq!(leases.polling(), vec![taken[0].id]);
    Ok((leases, taken[0].id))
}

/// Whether another replica can lease the feed now.
async fn another_replica_takes_it(db: &TestDb) -> anyhow::Result<bool> {
    let at = now();
    let taken = db
        .store
        .lease_feeds("another", at, at + Duration::seconds(30), 10, true)
        .await?;
    Ok(!taken.is_empty())
}

/// The release at the end of a poll fails (every retry): the lease is no longer renewed, so
/// it lapses and the feed moves on, instead of being held by a process that does not poll it.
async fn a_lease_that_could_not_be_given_back_lapses(db: TestDb) -> anyhow::Result<()> {
    let (leases, feed) = holding_one_feed(&db, 2).await?;
    let renewal = leases.keep_renewed();
    common::faults::refuse_lease_releases(&db, true).await?;
    leases.release(Some(feed)).await;
    assert_eq!(leases.unreleased(), vec![feed]);
    assert!(leases.polling().is_empty());
    let deadline = Instant::now() + std::time::Duration::from_secs(20);
    while !another_replica_takes_it(&db).await? {
        anyhow::ensure!(
            Instant::now() < deadline,
            "a lease nobody polls under was renewed past its lapse"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    common::faults::refuse_lease_releases(&db, false).await?;
    renewal.finish().await;
    Ok(())
}

/// The release fails; once the database takes writes again, the next take gives the lease
/// back first, long before it would lapse.
async fn a_lease_that_could_not_be_given_back_goes_back_at_the_next_take(
    db: TestDb,
) -> anyhow::Result<()> {
    let (leases, feed) = holding_one_feed(&db, 600).await?;
    // The poll recorded when the feed is due next, then could not give it back.
    let at = now();
    db.store
        .record_feed_poll(feed, &polled(at, at + Duration::minutes(15)))
        .await?;
    common::faults::refuse_lease_releases(&db, true).await?;
    leases.release(Some(feed)).await;
    assert_eq!(leases.unreleased(), vec![feed]);
    assert!(!another_replica_takes_it(&db).await?, "still held");
    common::faults::refuse_lease_releases(&db, false).await?;
    assert!(leases.take(10, false).await?.is_empty(), "nothing is due");
    assert!(leases.unreleased().is_empty());
    assert!(another_replica_takes_it(&db).await?, "given back");
    Ok(())
}

/// A new feed (never polled) and a feed whose URL changed (due at once) have no next due time:
/// nobody polls them for three firings, and they are overdue, from their creation and from
/// their last poll; `gleaner feeds` agrees through `FeedRecord::due_since`.
async fn a_feed_without_a_next_due_time_is_overdue_too(store: Store) -> anyhow::Result<()> {
    let all = some_feeds(&store, 2).await?;
    let start = now();
    store
        .record_feed_poll(all[1], &polled(start, start + Duration::minutes(15)))
        .await?;
    // feed-01's URL changes: it is due at once, and has no next due time.
    let mut configs: Vec<FeedConfig> = Vec::new();
    for feed in store.feeds().await? {
        let url = if feed.id == all[1] {
            "https://moved.example.org/feed.xml".to_string()
        } else {
            feed.url.clone()
        };
        configs.push(FeedConfig::new(
            &feed.name,
            url.parse()?,
            CronSchedule::parse(&feed.schedule)?,
        ));
    }
    store.sync_feeds(&configs).await?;
    let feeds = store.feeds().await?;
    assert!(
        feeds.iter().all(|feed| feed.next_due_at.is_none()),
        "{feeds:?}"
    );
    assert!(
        store
            .overdue_feeds(start + Duration::minutes(20))
            .await?
            .is_empty()
    );

    let later = start + Duration::minutes(50);
    let overdue = store.overdue_feeds(later).await?;
    let names: Vec<&str> = overdue.iter().map(|feed| feed.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{overdue:?}");
    assert!(
        names.contains(&"feed-00") && names.contains(&"feed-01"),
        "{overdue:?}"
    );
    for feed in &feeds {
        let shown = overdue
            .iter()
            .find(|o| o.name == feed.name)
            .map(|o| o.due_since);
        assert_eq!(
            overdue_since(&feed.schedule, Some(feed.due_since()), later),
            shown
        );
    }
    let moved = overdue.iter().find(|o| o.name == "feed-01");
    assert_eq!(
        moved.map(|o| o.due_since),
        Some(start),
        "due from its last poll"
    );
    Ok(())
}

/// A release fails and the lease lapses; the process takes the feed again (a new lease) and
/// polls it. The old release, retried before the next take, must not free the new lease:
/// otherwise that take hands the feed out a second time while it is being polled.
async fn a_late_release_never_frees_a_lease_taken_since(db: TestDb) -> anyhow::Result<()> {
    let (leases, feed) = holding_one_feed(&db, 2).await?;
    common::faults::refuse_lease_releases(&db, true).await?;
    leases.release(Some(feed)).await;
    assert_eq!(leases.unreleased(), vec![feed]);
    tokio::time::sleep(std::time::Duration::from_millis(2300)).await;
    let again = leases.take(10, true).await?;
    assert_eq!(
        ids(&again),
        BTreeSet::from([feed]),
        "the lapsed lease is taken again"
    );
    assert_eq!(leases.polling(), vec![feed]);
    common::faults::refuse_lease_releases(&db, false).await?;
    let third = leases.take(10, true).await?;
    assert!(
        third.is_empty(),
        "the feed being polled was handed out again: {third:?}"
    );
    assert!(leases.unreleased().is_empty(), "the old lease is done with");
    assert!(
        !another_replica_takes_it(&db).await?,
        "the new lease still holds"
    );
    leases.release(Some(feed)).await;
    assert!(
        another_replica_takes_it(&db).await?,
        "the new lease goes back by its own release"
    );
    Ok(())
}
