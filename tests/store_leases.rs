//! Feed leases, on both backends: processes sharing one database never poll the same feed at
//! once, and a lease that is not renewed lets the feed move on.

mod common;

use std::collections::BTreeSet;

use chrono::{Duration, Utc};
use gleaner::config::FeedConfig;
use gleaner::schedule::CronSchedule;
use gleaner::store::{FeedPoll, Store, db_time};

on_both_backends!(
    concurrent_claimers_get_disjoint_feeds,
    a_held_lease_keeps_others_out_until_it_lapses,
    renewed_and_released_leases,
    leasing_follows_the_schedule,
    one_host_is_polled_from_one_replica_at_a_time,
);

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
            .renew_feed_leases("a", now + Duration::seconds(90))
            .await?,
        3
    );
    assert_eq!(store.renew_feed_leases("b", now).await?, 0);
    // Renewed: still held after the first lease would have lapsed.
    let at = now + Duration::seconds(60);
    assert!(store.lease_feeds("b", at, at, 10, false).await?.is_empty());
    // Another owner cannot give a feed back; its holder can, one or all.
    store.release_feed_leases("b", Some(all[0])).await?;
    assert!(
        store
            .lease_feeds("b", now, now, 10, false)
            .await?
            .is_empty()
    );
    store.release_feed_leases("a", Some(all[0])).await?;
    assert_eq!(
        ids(&store
            .lease_feeds("b", now, now + Duration::seconds(30), 10, false)
            .await?),
        BTreeSet::from([all[0]])
    );
    store.release_feed_leases("a", None).await?;
    assert_eq!(store.renew_feed_leases("a", now).await?, 0);
    assert_eq!(
        ids(&store.lease_feeds("c", now, now, 10, false).await?),
        all[1..].iter().copied().collect()
    );
    Ok(())
}

async fn leasing_follows_the_schedule(store: Store) -> anyhow::Result<()> {
    let all = some_feeds(&store, 3).await?;
    let now = db_time(Utc::now());
    let next = now + Duration::minutes(15);
    for &id in &all[1..] {
        let poll = FeedPoll {
            polled_at: now,
            status: "ok".into(),
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
