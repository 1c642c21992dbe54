//! This process's hold on feeds in a database that other processes may share: leases taken
//! atomically, renewed every third of `[daemon] feed_lease_seconds` while the feed is polled,
//! and given back when its poll ends and when the process stops gracefully (see the parent
//! module for the whole story).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use crate::pipeline::Context;
use crate::store::{FeedRecord, Store, StoreError, now};

/// Attempts at giving a lease back before it is left to the next take: the first at once,
/// each retry after the next of these waits.
const RELEASE_RETRY_WAITS: [Duration; 2] = [Duration::from_millis(100), Duration::from_millis(500)];

/// This process's hold on feeds in a database that other processes may share.
#[derive(Debug, Clone)]
pub struct FeedLeases {
    store: Store,
    owner: Arc<str>,
    lease: Duration,
    /// The feeds this process is polling: the only leases it renews.
    polling: Arc<Mutex<BTreeSet<i64>>>,
    /// Feeds whose lease could not be given back: tried again before each take and renewal.
    unreleased: Arc<Mutex<BTreeSet<i64>>>,
}

/// A poisoned set only means a panic elsewhere while it was held: the ids are still right.
fn lock_ids(set: &Mutex<BTreeSet<i64>>) -> std::sync::MutexGuard<'_, BTreeSet<i64>> {
    set.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl FeedLeases {
    /// Leases of `[daemon] feed_lease_seconds` under a name no other process has: host,
    /// process id and a random part (process ids repeat across hosts and restarts).
    pub fn new(ctx: &Context) -> FeedLeases {
        use std::hash::{BuildHasher, RandomState};
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "localhost".to_string());
        let random = RandomState::new().hash_one(Instant::now()) & 0xffff_ffff;
        let owner = format!("{host}/{}/{random:08x}", std::process::id());
        FeedLeases {
            store: ctx.store.clone(),
            owner: owner.into(),
            lease: Duration::from_secs(ctx.config.daemon.feed_lease_seconds),
            polling: Default::default(),
            unreleased: Default::default(),
        }
    }

    /// When a lease taken or renewed now lapses.
    fn lapses_at(&self) -> DateTime<Utc> {
        now() + chrono::Duration::from_std(self.lease).unwrap_or(chrono::Duration::MAX)
    }

    /// The name this process's leases carry in `feeds.lease_owner`.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Leases up to `limit` due feeds (every active one with `all`) that nobody holds, after
    /// giving back the leases that could not be given back before; they are renewed until
    /// [`FeedLeases::release`].
    pub async fn take(&self, limit: usize, all: bool) -> Result<Vec<FeedRecord>, StoreError> {
        self.give_back_unreleased().await;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let feeds = self
            .store
            .lease_feeds(&self.owner, now(), self.lapses_at(), limit, all)
            .await?;
        lock_ids(&self.polling).extend(feeds.iter().map(|feed| feed.id));
        Ok(feeds)
    }

    /// The feeds this process is polling, whose leases it renews.
    pub fn polling(&self) -> Vec<i64> {
        lock_ids(&self.polling).iter().copied().collect()
    }

    /// Feeds whose lease could not be given back yet.
    pub fn unreleased(&self) -> Vec<i64> {
        lock_ids(&self.unreleased).iter().copied().collect()
    }

    /// Gives one feed back, or every feed this process holds. It is no longer renewed
    /// either way; a feed that cannot be given back after a few tries is tried again before
    /// the next take, and its lease lapses by itself meanwhile.
    pub async fn release(&self, feed_id: Option<i64>) {
        match feed_id {
            Some(id) => {
                lock_ids(&self.polling).remove(&id);
                if !self.give_back(Some(id)).await {
                    lock_ids(&self.unreleased).insert(id);
                    tracing::warn!(
                        feed_id = id,
                        "cannot give a feed's lease back; trying again before the next lease, \
                         and it lapses on its own meanwhile"
                    );
                }
            }
            None => {
                lock_ids(&self.polling).clear();
                if self.give_back(None).await {
                    lock_ids(&self.unreleased).clear();
                } else {
                    tracing::warn!("cannot give feed leases back; they lapse on their own");
                }
            }
        }
    }

    /// One attempt and [`RELEASE_RETRY_WAITS`] retries; whether the feed went back.
    async fn give_back(&self, feed_id: Option<i64>) -> bool {
        let mut waits = RELEASE_RETRY_WAITS.iter();
        loop {
            match self.store.release_feed_leases(&self.owner, feed_id).await {
                Ok(()) => return true,
                Err(error) => {
                    let Some(wait) = waits.next() else {
                        tracing::debug!(%error, "giving a lease back failed");
                        return false;
                    };
                    tracing::debug!(%error, "giving a lease back failed; retrying");
                    tokio::time::sleep(*wait).await;
                }
            }
        }
    }

    /// Gives back, once each, the leases that could not be given back before.
    async fn give_back_unreleased(&self) {
        let pending = self.unreleased();
        for id in pending {
            if self
                .store
                .release_feed_leases(&self.owner, Some(id))
                .await
                .is_ok()
            {
                lock_ids(&self.unreleased).remove(&id);
                tracing::info!(feed_id = id, "a feed's lease was given back late");
            }
        }
    }

    /// Renews the leases of the feeds being polled, after giving back the ones left over.
    async fn renew(&self) {
        self.give_back_unreleased().await;
        let polling = self.polling();
        match self
            .store
            .renew_feed_leases(&self.owner, &polling, self.lapses_at())
            .await
        {
            Ok(held) if held < polling.len() as u64 => tracing::warn!(
                polling = polling.len(),
                held,
                "some polled feeds' leases lapsed; another process may poll them too"
            ),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "cannot renew feed leases; retrying"),
        }
    }

    /// Starts renewing the leases of the feeds being polled every third of their length, in
    /// the background, until [`Renewal::finish`].
    pub fn keep_renewed(&self) -> Renewal {
        let stop = CancellationToken::new();
        let (leases, stopped) = (self.clone(), stop.clone());
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(leases.lease / 3);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = stopped.cancelled() => return,
                    _ = tick.tick() => {}
                }
                leases.renew().await;
            }
        });
        Renewal {
            leases: self.clone(),
            stop,
            task,
        }
    }
}

/// The background renewal of a process's leases.
#[derive(Debug)]
pub struct Renewal {
    leases: FeedLeases,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Renewal {
    /// Stops renewing and gives every lease back: the feeds go straight to other processes.
    pub async fn finish(self) {
        self.stop.cancel();
        let _ = self.task.await;
        self.leases.release(None).await;
    }
}
