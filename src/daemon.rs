//! The long-lived service and the one-shot cycle.
//!
//! Owns the scheduling loop of `gleaner run`: it starts a poll for every active feed whose
//! `next_due_at` has come (at most `[fetch].concurrency` feeds at once, each feed never twice
//! at a time), sleeps until the next one is due, reloads `config.toml` when the file changes
//! or on SIGHUP (new feeds start, removed feeds stop, their articles stay; an invalid file, or
//! one without feeds where there were feeds and without `feeds = []`, is logged and the
//! running configuration kept), and on SIGTERM/SIGINT stops taking work, lets
//! in-flight polls finish for `shutdown_grace_seconds`, then abandons the rest. Abandoning is
//! safe: an article is written in one transaction, and a dropped transaction rolls back.
//! Shutdown is an explicit [`CancellationToken`] passed down, never a global. Webhook
//! deliveries run beside the loop ([`crate::webhooks::run_deliveries`]), fed the running
//! webhooks and client on every reload.
//!
//! [`poll_once`] is `gleaner poll --once`: one pass over the due feeds (or all), then return.
//!
//! Several processes may share one database (replicas of `gleaner run` on one PostgreSQL, or
//! a `poll --once` beside a running service). A process polls a feed only while it holds the
//! feed's lease ([`FeedLeases`]): leases are taken atomically (`FOR UPDATE SKIP LOCKED` on
//! PostgreSQL, the single writer on SQLite), renewed every third of `[daemon]
//! feed_lease_seconds` while the poll runs, and given back when it ends. Only the feeds being
//! polled are renewed: a lease that could not be given back (the database failed at that
//! moment) is given back again, a few times at once and then before every later take and
//! renewal, and lapses by itself meanwhile. A process killed mid-poll stops renewing, so its
//! feeds move on to the others when the lease lapses; the articles it stored are whole (one
//! transaction each) and unique by constraint, so the replica that takes over skips them.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::config::Config;
use crate::fetch::{FetchError, Fetcher};
use crate::pipeline::{Context, FeedReport, poll_feed};
use crate::store::{FeedRecord, PollStatus, Store, StoreError, now};
use crate::webhooks::{self, Targets};

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

/// How often the configuration file is checked for changes.
const CONFIG_CHECK_INTERVAL: Duration = Duration::from_secs(2);
/// The loop wakes at least this often, even with nothing due.
const MAX_SLEEP: Duration = Duration::from_secs(60);

/// Why the service could not start.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("building the HTTP client: {0}")]
    Fetch(#[from] FetchError),
    #[error("installing signal handlers: {0}")]
    Signals(#[source] std::io::Error),
    #[error("the API cannot listen on {address}: {source}")]
    Listen {
        address: std::net::SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{config} lists no feeds, but the database has {active} active; an emptied or cut-short \
         file would stop them all. Write `feeds = []` in the file to stop every feed"
    )]
    NoFeeds { config: String, active: usize },
}

/// Refuses a configuration without feeds that would stop the active feeds of the database,
/// unless it says `feeds = []`.
async fn refuse_lost_feeds(store: &Store, config: &Config) -> Result<(), DaemonError> {
    if !config.feeds.is_empty() || config.no_feeds_meant {
        return Ok(());
    }
    let active = store.feeds().await?.iter().filter(|f| f.active).count();
    if active == 0 {
        return Ok(());
    }
    Err(DaemonError::NoFeeds {
        config: config.path.display().to_string(),
        active,
    })
}

/// Connects the store (creating or upgrading the schema), makes the feeds table match the
/// configuration (refusing one without feeds that would stop the stored ones, unless it says
/// `feeds = []`), and builds the HTTP client.
pub async fn prepare(config: Config) -> Result<Context, DaemonError> {
    let store = Store::connect(&config.database.target).await?;
    if let Err(refused) = refuse_lost_feeds(&store, &config).await {
        store.close().await;
        return Err(refused);
    }
    store.sync_feeds(&config.feeds).await?;
    store.sync_webhooks(&config.webhooks).await?;
    let fetcher = Fetcher::new(&config.fetch)?;
    tracing::info!(database = %store.target(), feeds = config.feeds.len(), "ready");
    Ok(Context {
        config: Arc::new(config),
        store,
        fetcher,
        in_flight: Default::default(),
    })
}

/// Totals of one cycle, printed by `poll --once`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PollSummary {
    pub feeds: usize,
    pub new_articles: usize,
    pub failed_articles: usize,
    /// Images of stored articles whose bytes could not be downloaded.
    pub failed_images: usize,
    /// Feeds that could not be polled.
    pub errors: usize,
    /// Entries turned away by their feed's filters.
    pub blocked: usize,
    /// Feeds left alone because another process holds them.
    pub leased: usize,
    /// The cycle was stopped (SIGTERM, SIGINT) before every feed was polled; the rest are
    /// polled by the next cycle, at once, since their leases were given back.
    pub interrupted: bool,
    pub elapsed: Duration,
}

impl PollSummary {
    pub fn add(&mut self, report: &FeedReport) {
        if report.status == PollStatus::Leased {
            self.leased += 1;
            return;
        }
        self.feeds += 1;
        self.new_articles += report.new_articles;
        self.failed_articles += report.failed_articles;
        self.failed_images += report.failed_images;
        self.errors += usize::from(report.error.is_some());
        self.blocked += report.blocked;
    }

    /// `feeds=N new_articles=N failed_articles=N failed_images=N errors=N blocked=N leased=N
    /// elapsed_ms=N`
    pub fn summary_line(&self) -> String {
        format!(
            "feeds={} new_articles={} failed_articles={} failed_images={} errors={} blocked={} leased={} elapsed_ms={}",
            self.feeds,
            self.new_articles,
            self.failed_articles,
            self.failed_images,
            self.errors,
            self.blocked,
            self.leased,
            self.elapsed.as_millis()
        )
    }
}

/// One pass over the feeds that are due (every active feed with `all`) and that no other
/// process is polling, at most `[fetch].concurrency` at a time; `on_report` sees each feed as
/// it finishes, and each feed left to another process. When `cancel` fires, no feed is
/// started any more, the polls in flight have `[daemon] shutdown_grace_seconds` to finish
/// (each stops taking entries), and then every lease is given back, so that the next cycle
/// takes the feeds at once.
pub async fn poll_once(
    ctx: &Context,
    all: bool,
    cancel: &CancellationToken,
    mut on_start: impl FnMut(usize),
    mut on_report: impl FnMut(&FeedReport),
) -> Result<PollSummary, StoreError> {
    let started = Instant::now();
    let leases = FeedLeases::new(ctx);
    let feeds = leases.take(usize::MAX, all).await?;
    let renewal = leases.keep_renewed();
    let leased_elsewhere = match ctx
        .store
        .feeds_leased_elsewhere(leases.owner(), now(), all)
        .await
    {
        Ok(leased) => leased,
        Err(error) => {
            renewal.finish().await;
            return Err(error);
        }
    };
    on_start(feeds.len() + leased_elsewhere.len());
    let mut summary = PollSummary::default();
    for held in leased_elsewhere {
        let report = FeedReport::leased(held);
        summary.add(&report);
        on_report(&report);
    }
    let mut finished = |done: Result<FeedReport, tokio::task::JoinError>| match done {
        Ok(report) => {
            summary.add(&report);
            on_report(&report);
        }
        // Nothing of the feed is lost: its entries stay due for the next poll.
        Err(error) if error.is_panic() => {
            tracing::error!("a poll panicked; the feed is retried when next due");
        }
        Err(_) => {}
    };
    // Each feed's poll is a task of its own, as in the service: polled inside this one
    // future, every feed's downloads, inflating and writes would share the caller's thread.
    let mut feeds = feeds.into_iter();
    let mut polls: JoinSet<FeedReport> = JoinSet::new();
    loop {
        while polls.len() < ctx.config.fetch.concurrency.max(1) && !cancel.is_cancelled() {
            let Some(feed) = feeds.next() else { break };
            spawn_poll(&mut polls, ctx, feed, cancel);
        }
        let done = tokio::select! {
            done = polls.join_next() => done,
            _ = cancel.cancelled() => break,
        };
        match done {
            Some(done) => finished(done),
            None => break,
        }
    }
    let interrupted = cancel.is_cancelled() && (feeds.next().is_some() || !polls.is_empty());
    let grace = Duration::from_secs(ctx.config.daemon.shutdown_grace_seconds);
    let drained = tokio::time::timeout(grace, async {
        while let Some(done) = polls.join_next().await {
            finished(done);
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            abandoned = polls.len(),
            "grace period over: abandoning the polls in flight; their entries stay due"
        );
        polls.shutdown().await;
    }
    // Feeds never started and polls abandoned go back at once, not when their leases lapse.
    renewal.finish().await;
    summary.interrupted = interrupted;
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Runs the service until SIGTERM or SIGINT; SIGHUP reloads the configuration.
pub async fn run_until_signalled(config_path: PathBuf, config: Config) -> Result<(), DaemonError> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).map_err(DaemonError::Signals)?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(DaemonError::Signals)?;
    let mut hangup = signal(SignalKind::hangup()).map_err(DaemonError::Signals)?;
    let shutdown = CancellationToken::new();
    let (reload_tx, reload_rx) = mpsc::channel(4);
    let signals = {
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = terminate.recv() => { tracing::info!("SIGTERM: shutting down"); break; }
                    _ = interrupt.recv() => { tracing::info!("SIGINT: shutting down"); break; }
                    _ = hangup.recv() => {
                        tracing::info!("SIGHUP: reloading the configuration");
                        let _ = reload_tx.send(()).await;
                    }
                }
            }
            shutdown.cancel();
        })
    };
    let result = run(config_path, config, shutdown, reload_rx).await;
    signals.abort();
    result
}

/// The service loop. `reload` asks for a configuration reload; `shutdown` ends the loop.
pub async fn run(
    config_path: PathBuf,
    config: Config,
    shutdown: CancellationToken,
    mut reload: mpsc::Receiver<()>,
) -> Result<(), DaemonError> {
    let mut ctx = prepare(config).await?;
    // Built now rather than while the first page waits (some 25 million instructions).
    crate::extract::warm_up();
    if ctx.config.feeds.is_empty() {
        tracing::warn!(config = %config_path.display(), "no feeds configured: add [[feeds]] to start");
    }
    let api_server = match ctx.config.api.clone() {
        Some(api) => {
            let listener = tokio::net::TcpListener::bind(api.listen)
                .await
                .map_err(|source| DaemonError::Listen {
                    address: api.listen,
                    source,
                })?;
            let (store, stop) = (ctx.store.clone(), shutdown.clone());
            Some(tokio::spawn(async move {
                if let Err(error) = crate::api::serve(listener, store, api, stop).await {
                    tracing::error!(%error, "the API stopped");
                }
            }))
        }
        None => None,
    };
    let (targets, targets_seen) = watch::channel(Targets::new(&ctx.config.webhooks, &ctx.fetcher));
    let deliveries = tokio::spawn(webhooks::run_deliveries(
        ctx.store.clone(),
        targets_seen,
        shutdown.clone(),
    ));
    let leases = FeedLeases::new(&ctx);
    tracing::info!(owner = leases.owner(), "leasing feeds");
    // Renewal outlives `shutdown`: polls finishing in the grace period still hold their feeds.
    let renewal = leases.keep_renewed();
    let work = shutdown.child_token();
    let mut polls: JoinSet<FeedReport> = JoinSet::new();
    let mut in_flight: HashMap<tokio::task::Id, i64> = HashMap::new();
    let mut config_seen = fingerprint(&config_path);
    let mut config_check = tokio::time::interval(CONFIG_CHECK_INTERVAL);
    config_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The polls since the service was last idle: one line says what they did.
    let mut cycle: Option<(Instant, PollSummary)> = None;
    let mut retention_due = Instant::now();

    loop {
        let wake_in = start_due_polls(&ctx, &leases, &work, &mut polls, &mut in_flight).await;
        if !polls.is_empty() && cycle.is_none() {
            cycle = Some((Instant::now(), PollSummary::default()));
        }
        if Instant::now() >= retention_due {
            retention_due = Instant::now() + RETENTION_INTERVAL;
            apply_retention(&ctx).await;
        }
        tokio::select! {
            _ = shutdown.cancelled() => break,
            Some(()) = reload.recv() => {
                config_seen = fingerprint(&config_path);
                reload_config(&mut ctx, &config_path, &targets).await;
            }
            _ = config_check.tick() => {
                let current = fingerprint(&config_path);
                if current.is_some() && current != config_seen {
                    config_seen = current;
                    tracing::info!(config = %config_path.display(), "configuration file changed");
                    reload_config(&mut ctx, &config_path, &targets).await;
                }
            }
            Some(done) = polls.join_next_with_id(), if !polls.is_empty() => {
                if let Some(report) = finish_poll(done, &mut in_flight, &leases).await {
                    say_feed_outcome(&ctx, &report).await;
                    if let Some((_, summary)) = cycle.as_mut() {
                        summary.add(&report);
                    }
                }
                if polls.is_empty()
                    && let Some((started, mut summary)) = cycle.take()
                {
                    summary.elapsed = started.elapsed();
                    say_cycle(&ctx, &summary).await;
                }
            }
            _ = tokio::time::sleep(wake_in) => {}
        }
    }

    work.cancel();
    let grace = Duration::from_secs(ctx.config.daemon.shutdown_grace_seconds);
    tracing::info!(
        in_flight = polls.len(),
        grace_seconds = grace.as_secs(),
        "stopping: finishing in-flight polls"
    );
    let drained = tokio::time::timeout(grace, async {
        while let Some(done) = polls.join_next_with_id().await {
            finish_poll(done, &mut in_flight, &leases).await;
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            abandoned = polls.len(),
            "grace period over: abandoning in-flight polls"
        );
        polls.shutdown().await;
    }
    // Abandoned polls stored nothing half-way; their feeds go straight back to the others.
    renewal.finish().await;
    // The delivery task stopped with `shutdown`; an attempt it cut short is sent again later.
    let _ = deliveries.await;
    if let Some(server) = api_server {
        // The server began its graceful stop with the shutdown token; requests in flight end.
        if tokio::time::timeout(grace, server).await.is_err() {
            tracing::warn!("the API did not stop in time");
        }
    }
    ctx.store.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// Starts one feed's poll as a task of its own, in a span naming the feed.
fn spawn_poll(
    polls: &mut JoinSet<FeedReport>,
    ctx: &Context,
    feed: FeedRecord,
    work: &CancellationToken,
) -> tokio::task::Id {
    let (ctx, work) = (ctx.clone(), work.clone());
    let span = tracing::info_span!("poll", feed = %feed.name);
    polls
        .spawn(async move { poll_feed(&ctx, &feed, &work).await }.instrument(span))
        .id()
}

/// Leases due feeds for the free polling slots, starts a poll for each, and says how long to
/// sleep before looking again.
async fn start_due_polls(
    ctx: &Context,
    leases: &FeedLeases,
    work: &CancellationToken,
    polls: &mut JoinSet<FeedReport>,
    in_flight: &mut HashMap<tokio::task::Id, i64>,
) -> Duration {
    let free = ctx.config.fetch.concurrency.saturating_sub(polls.len());
    if free > 0 && !work.is_cancelled() {
        // A feed this process is polling is leased to it, so it is not handed out again.
        match leases.take(free, false).await {
            Ok(due) => {
                for feed in due {
                    let feed_id = feed.id;
                    let task = spawn_poll(polls, ctx, feed, work);
                    in_flight.insert(task, feed_id);
                }
            }
            Err(error) => tracing::error!(%error, "cannot lease due feeds; retrying"),
        }
    }
    match ctx.store.next_due().await {
        Ok(Some(at)) => (at - now())
            .to_std()
            .unwrap_or(Duration::ZERO)
            .clamp(Duration::from_millis(200), MAX_SLEEP),
        Ok(None) => MAX_SLEEP,
        Err(_) => Duration::from_secs(5),
    }
}

/// How often the `[retention]` rules are applied while the service runs.
const RETENTION_INTERVAL: Duration = Duration::from_secs(3600);

/// Applies `[retention]`: articles (or only their raw pages) older than the configured age
/// are removed. A failure is logged and tried again at the next interval.
async fn apply_retention(ctx: &Context) {
    let Some(retention) = ctx.config.retention.clone() else {
        return;
    };
    let Ok(age) = chrono::Duration::from_std(retention.older_than) else {
        return;
    };
    let cutoff = now() - age;
    match ctx.store.prune(cutoff, retention.raw_only).await {
        Ok(pruned) if pruned.articles > 0 || pruned.raw_pages > 0 => tracing::info!(
            articles = pruned.articles,
            raw_pages = pruned.raw_pages,
            images = pruned.image_blobs,
            "retention: pruned what was fetched before {}",
            cutoff.format("%Y-%m-%d %H:%M UTC")
        ),
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "retention: cannot prune; trying again later"),
    }
}

/// One line per feed that could not be polled: what failed and when it is tried again. A
/// feed polled well is logged at debug level only; the cycle's line counts it.
async fn say_feed_outcome(ctx: &Context, report: &FeedReport) {
    let Some(error) = &report.error else {
        tracing::debug!(summary = %report.summary_line(), "poll finished");
        return;
    };
    let next = match ctx.store.feed_by_name(&report.feed).await {
        Ok(Some(feed)) => feed.next_due_at.map(next_poll_phrase),
        _ => None,
    };
    tracing::warn!(
        "feed {} not polled: {error}; {}",
        report.feed,
        next.unwrap_or_else(|| "it is tried again when next due".to_string())
    );
}

/// The cycle's one line: its totals and when the next feed is due.
async fn say_cycle(ctx: &Context, summary: &PollSummary) {
    let next = match ctx.store.next_due().await {
        Ok(Some(at)) => next_poll_phrase(at),
        _ => "no feed is due".to_string(),
    };
    tracing::info!("polled {}; {next}", summary.summary_line());
}

/// "next poll at 2026-11-24 04:40:00 UTC (in 4m 10s)".
pub fn next_poll_phrase(at: DateTime<Utc>) -> String {
    let wait = (at - now()).num_seconds().max(0);
    let wait = match wait {
        0..60 => format!("{wait}s"),
        60..3600 => format!("{}m {}s", wait / 60, wait % 60),
        _ => format!("{}h {}m", wait / 3600, wait % 3600 / 60),
    };
    format!(
        "next poll at {} (in {wait})",
        at.format("%Y-%m-%d %H:%M:%S UTC")
    )
}

/// Bookkeeping of a finished poll: its feed's lease goes back. The poll's report, unless it
/// panicked.
async fn finish_poll(
    done: Result<(tokio::task::Id, FeedReport), tokio::task::JoinError>,
    in_flight: &mut HashMap<tokio::task::Id, i64>,
    leases: &FeedLeases,
) -> Option<FeedReport> {
    let (task, feed_id, report) = match done {
        Ok((task, report)) => (task, in_flight.remove(&task), Some(report)),
        Err(error) => {
            let feed_id = in_flight.remove(&error.id());
            if error.is_panic() {
                tracing::error!(
                    feed_id,
                    "a poll panicked; the feed is retried when next due"
                );
            }
            (error.id(), feed_id, None)
        }
    };
    match feed_id {
        Some(feed_id) => leases.release(Some(feed_id)).await,
        None => tracing::warn!(%task, "a finished poll had no feed on record"),
    }
    report
}

/// Loads the file again; a valid configuration replaces the running one (webhook deliveries
/// switch to it through `targets`), an invalid one is logged and ignored, and so is one
/// without feeds where there were feeds, unless it says `feeds = []`.
async fn reload_config(ctx: &mut Context, path: &Path, targets: &watch::Sender<Targets>) {
    let mut config = match Config::load(path) {
        Ok(config) => config,
        Err(error) => {
            tracing::error!(%error, "configuration not reloaded: keeping the running one");
            return;
        }
    };
    if config.feeds.is_empty() && !ctx.config.feeds.is_empty() && !config.no_feeds_meant {
        tracing::error!(
            config = %path.display(),
            running = ctx.config.feeds.len(),
            "configuration not reloaded: the file lists no feeds (emptied or cut short?); \
             keeping the running one. Write `feeds = []` to stop every feed"
        );
        return;
    }
    if config.database.target != ctx.config.database.target {
        tracing::warn!(
            "a new [database] url takes effect on restart; keeping the current database"
        );
        config.database = ctx.config.database.clone();
    }
    if config.daemon.feed_lease_seconds != ctx.config.daemon.feed_lease_seconds {
        tracing::warn!("[daemon] feed_lease_seconds takes effect on restart");
        config.daemon.feed_lease_seconds = ctx.config.daemon.feed_lease_seconds;
    }
    if config.api != ctx.config.api {
        tracing::warn!("[api] changes take effect on restart; the API keeps its current settings");
        config.api = ctx.config.api.clone();
    }
    let fetcher = if config.fetch == ctx.config.fetch {
        ctx.fetcher.clone()
    } else {
        match Fetcher::new(&config.fetch) {
            Ok(fetcher) => fetcher,
            Err(error) => {
                tracing::error!(%error, "configuration not reloaded: keeping the running one");
                return;
            }
        }
    };
    if let Err(error) = ctx.store.sync_feeds(&config.feeds).await {
        tracing::error!(%error, "configuration not reloaded: keeping the running one");
        return;
    }
    if let Err(error) = ctx.store.sync_webhooks(&config.webhooks).await {
        tracing::error!(%error, "webhooks not reloaded: deliveries keep the previous list");
    }
    targets.send_replace(Targets::new(&config.webhooks, &fetcher));
    tracing::info!(feeds = config.feeds.len(), "configuration reloaded");
    *ctx = Context {
        config: Arc::new(config),
        store: ctx.store.clone(),
        fetcher,
        in_flight: ctx.in_flight.clone(),
    };
}

/// The file's content, to notice edits (editors often replace the file, so mtimes alone are
/// not enough). A file that cannot be read counts as unchanged until it can be read again.
fn fingerprint(path: &Path) -> Option<u64> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let bytes = std::fs::read(path).ok()?;
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    Some(hasher.finish())
}
