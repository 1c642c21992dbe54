//! This process's hold on feeds in a database that other processes may share: leases taken
//! atomically, renewed every third of `[daemon] feed_lease_seconds` while the feed is polled,
//! and given back when its poll ends and when the process stops gracefully (see the parent
//! module for the whole story). A release names the lease's generation, so a late one never
//! frees a lease taken since. Takes that fail (a full disk, a failover) are retried after
//! doubling waits and logged at a bounded rate.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use crate::pipeline::Context;
use crate::store::{FeedRecord, Store, StoreError, now};

/// Attempts at giving a lease back before it is left to the next take: the first at once,
/// each retry after the next of these waits.
const RELEASE_RETRY_WAITS: [Duration; 2] = [Duration::from_millis(100), Duration::from_millis(500)];

/// The wait before the first retry of a failed take; each further failure doubles it.
const FIRST_TAKE_RETRY: Duration = Duration::from_millis(200);
/// The longest wait between two attempts at taking leases.
const MAX_TAKE_RETRY: Duration = Duration::from_secs(30);
/// While takes keep failing, at most one line per this interval says so.
const TAKE_FAILURE_LOG_INTERVAL: Duration = Duration::from_secs(60);

/// This process's hold on feeds in a database that other processes may share.
#[derive(Debug, Clone)]
pub struct FeedLeases {
    store: Store,
    owner: Arc<str>,
    lease: Duration,
    /// The feeds this process is polling, with their lease's generation: the only leases it
    /// renews.
    polling: Arc<Mutex<BTreeMap<i64, i64>>>,
    /// Leases that could not be given back (feed → generation): tried again before each take
    /// and renewal.
    unreleased: Arc<Mutex<BTreeMap<i64, i64>>>,
    /// The failed takes in a row, and when to try again.
    retry: Arc<Mutex<TakeRetry>>,
}

/// The back-off of failed takes.
#[derive(Debug, Default)]
struct TakeRetry {
    failures: u32,
    next_attempt: Option<Instant>,
    /// Failures since the last line about them, and when that line was written.
    unlogged: u32,
    logged_at: Option<Instant>,
}

/// A poisoned map only means a panic elsewhere while it was held: the values are still right.
fn lock<T>(held: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    held.lock()
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
            retry: Default::default(),
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
    /// [`FeedLeases::release`]. After a failed take, none is tried (and nothing is leased)
    /// until [`FeedLeases::retry_in`] has passed.
    pub async fn take(&self, limit: usize, all: bool) -> Result<Vec<FeedRecord>, StoreError> {
        if self.retry_in().is_some() {
            return Ok(Vec::new());
        }
        self.give_back_unreleased().await;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let taken = self
            .store
            .take_feed_leases(&self.owner, now(), self.lapses_at(), limit, all)
            .await;
        let taken = match taken {
            Ok(taken) => taken,
            Err(error) => {
                self.take_failed(&error);
                return Err(error);
            }
        };
        self.take_worked();
        let mut polling = lock(&self.polling);
        Ok(taken
            .into_iter()
            .map(|lease| {
                polling.insert(lease.feed.id, lease.lease_generation);
                lease.feed
            })
            .collect())
    }

    /// How long until the next take is tried, while takes fail; `None` when it may be now.
    pub fn retry_in(&self) -> Option<Duration> {
        let next = lock(&self.retry).next_attempt?;
        next.checked_duration_since(Instant::now())
            .filter(|wait| !wait.is_zero())
    }

    /// A take failed: the next waits twice as long as the last (at most [`MAX_TAKE_RETRY`]);
    /// the first failure is logged, then one line per [`TAKE_FAILURE_LOG_INTERVAL`].
    fn take_failed(&self, error: &StoreError) {
        let mut retry = lock(&self.retry);
        let wait = FIRST_TAKE_RETRY
            .saturating_mul(1 << retry.failures.min(16))
            .min(MAX_TAKE_RETRY);
        retry.failures = retry.failures.saturating_add(1);
        retry.unlogged = retry.unlogged.saturating_add(1);
        let now = Instant::now();
        retry.next_attempt = Some(now + wait);
        if retry
            .logged_at
            .is_none_or(|at| now.duration_since(at) >= TAKE_FAILURE_LOG_INTERVAL)
        {
            tracing::error!(
                %error,
                failed_attempts = retry.unlogged,
                retry_in_ms = wait.as_millis() as u64,
                "cannot lease due feeds; retrying after doubling waits"
            );
            retry.unlogged = 0;
            retry.logged_at = Some(now);
        }
    }

    /// A take worked: the back-off ends.
    fn take_worked(&self) {
        let mut retry = lock(&self.retry);
        if retry.failures > 0 {
            tracing::info!(
                failed_attempts = retry.failures,
                "leasing feeds works again"
            );
        }
        *retry = TakeRetry::default();
    }

    /// The feeds this process is polling, whose leases it renews.
    pub fn polling(&self) -> Vec<i64> {
        lock(&self.polling).keys().copied().collect()
    }

    /// Feeds whose lease could not be given back yet.
    pub fn unreleased(&self) -> Vec<i64> {
        lock(&self.unreleased).keys().copied().collect()
    }

    /// Gives one feed back, or every feed this process holds. It is no longer renewed
    /// either way; a feed that cannot be given back after a few tries is tried again before
    /// the next take, and its lease lapses by itself meanwhile.
    pub async fn release(&self, feed_id: Option<i64>) {
        match feed_id {
            Some(id) => {
                let Some(generation) = lock(&self.polling).remove(&id) else {
                    tracing::debug!(feed_id = id, "no lease of this feed to give back");
                    return;
                };
                if !self.give_back(Some((id, generation))).await {
                    lock(&self.unreleased).insert(id, generation);
                    tracing::warn!(
                        feed_id = id,
                        "cannot give a feed's lease back; trying again before the next lease, \
                         and it lapses on its own meanwhile"
                    );
                }
            }
            None => {
                lock(&self.polling).clear();
                if self.give_back(None).await {
                    lock(&self.unreleased).clear();
                } else {
                    tracing::warn!("cannot give feed leases back; they lapse on their own");
                }
            }
        }
    }

    /// One attempt and [`RELEASE_RETRY_WAITS`] retries; whether the lease went back.
    async fn give_back(&self, lease: Option<(i64, i64)>) -> bool {
        let mut waits = RELEASE_RETRY_WAITS.iter();
        loop {
            match self.store.release_feed_leases(&self.owner, lease).await {
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

    /// Gives back, once each, the leases that could not be given back before: each by its
    /// generation, so one the process took again since is left alone.
    async fn give_back_unreleased(&self) {
        let pending: Vec<(i64, i64)> = lock(&self.unreleased)
            .iter()
            .map(|(id, generation)| (*id, *generation))
            .collect();
        for (id, generation) in pending {
            if self
                .store
                .release_feed_leases(&self.owner, Some((id, generation)))
                .await
                .is_ok()
            {
                let mut unreleased = lock(&self.unreleased);
                if unreleased.get(&id) == Some(&generation) {
                    unreleased.remove(&id);
                }
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
