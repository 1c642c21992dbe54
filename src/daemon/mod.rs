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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::api::auth::ApiToken;
use crate::config::Config;
use crate::fetch::{FetchError, Fetcher};
use crate::pipeline::{Context, FeedReport};
use crate::store::{Store, StoreError, now};
use crate::webhooks::{self, Targets};

mod leases;
mod once;
pub use leases::{FeedLeases, Renewal};
use once::spawn_poll;
pub use once::{PollSummary, poll_once};

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
    let ctx = prepare(config).await?;
    // Built now rather than while the first page waits (some 25 million instructions).
    crate::extract::warm_up();
    if ctx.config.feeds.is_empty() {
        tracing::warn!(config = %config_path.display(), "no feeds configured: add [[feeds]] to start");
    }
    let (api_server, api_token) = start_api(&ctx, &shutdown).await?.unzip();
    announce_start(&ctx).await;
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
    let mut service = Service::new(ctx, config_path, leases, shutdown.child_token());
    service.api_token = api_token;
    let mut config_check = tokio::time::interval(CONFIG_CHECK_INTERVAL);
    config_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let wake_in = service.start_due_work().await;
        tokio::select! {
            _ = shutdown.cancelled() => break,
            Some(()) = reload.recv() => service.reload(&targets).await,
            _ = config_check.tick() => service.reload_if_changed(&targets).await,
            Some(done) = service.polls.join_next_with_id(), if !service.polls.is_empty() => {
                service.poll_finished(done).await;
            }
            _ = tokio::time::sleep(wake_in) => {}
        }
    }
    let grace = Duration::from_secs(service.ctx.config.daemon.shutdown_grace_seconds);
    service.finish_in_flight(grace).await;
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
    service.ctx.store.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// When the first active feed is due: now for one never polled (or whose URL or schedule
/// changed), else the earliest due time; `None` without active feeds.
pub async fn first_due(
    store: &crate::store::Store,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, crate::store::StoreError> {
    let feeds = store.feeds().await?;
    let active = feeds.iter().filter(|feed| feed.active);
    if active.clone().any(|feed| feed.next_due_at.is_none()) {
        return Ok(Some(crate::store::now()));
    }
    if active.count() == 0 {
        return Ok(None);
    }
    store.next_due().await
}

/// The line `gleaner run` starts with: the database, the API's address, the feeds and when
/// the first is due, so that a quiet service is known to be waiting, not stuck.
async fn announce_start(ctx: &Context) {
    let database = match ctx.store.backend() {
        crate::store::Backend::Sqlite => "sqlite",
        crate::store::Backend::Postgres => "postgres",
    };
    let api = ctx
        .config
        .api
        .as_ref()
        .map_or_else(|| "off".to_string(), |api| api.listen.to_string());
    let feeds = ctx.config.feeds.len();
    match first_due(&ctx.store).await {
        Ok(Some(at)) => tracing::info!(
            database,
            api = %api,
            feeds,
            "started: {feeds} feeds on {database}, API {api}; first feed: {}",
            next_poll_phrase(at)
        ),
        Ok(None) => tracing::info!(
            database,
            api = %api,
            feeds,
            "started: {feeds} feeds on {database}, API {api}; no active feed to poll"
        ),
        Err(error) => tracing::info!(
            database,
            api = %api,
            feeds,
            %error,
            "started: {feeds} feeds on {database}, API {api}; cannot read when the first is due"
        ),
    }
}

/// Starts the HTTP API when `[api]` is configured; it stops with `shutdown`. The server's
/// task, and the token it checks, which a reload replaces.
async fn start_api(
    ctx: &Context,
    shutdown: &CancellationToken,
) -> Result<Option<(tokio::task::JoinHandle<()>, ApiToken)>, DaemonError> {
    let Some(api) = ctx.config.api.clone() else {
        return Ok(None);
    };
    let listener = tokio::net::TcpListener::bind(api.listen)
        .await
        .map_err(|source| DaemonError::Listen {
            address: api.listen,
            source,
        })?;
    let (store, stop) = (ctx.store.clone(), shutdown.clone());
    let token = ApiToken::new(api.token.as_deref());
    let serving = token.clone();
    let server = tokio::spawn(async move {
        let served = crate::api::serve_with_token(listener, store, api, serving, stop).await;
        if let Err(error) = served {
            tracing::error!(%error, "the API stopped");
        }
    });
    Ok(Some((server, token)))
}

/// What the service loop keeps from one turn to the next: the running configuration, the
/// polls in flight with their feeds, and what is due besides polls.
struct Service {
    ctx: Context,
    config_path: PathBuf,
    leases: FeedLeases,
    /// Fires when the service stops taking work; polls stop taking entries.
    work: CancellationToken,
    polls: JoinSet<FeedReport>,
    /// The feed of each poll in flight, to give its lease back when it ends.
    in_flight: HashMap<tokio::task::Id, i64>,
    /// The configuration file's content as last read.
    config_seen: Option<u64>,
    /// The token the API checks, when it runs: a reload replaces it.
    api_token: Option<ApiToken>,
    /// The polls since the service was last idle: one line says what they did.
    cycle: Option<(Instant, PollSummary)>,
    retention_due: Instant,
}

impl Service {
    fn new(
        ctx: Context,
        config_path: PathBuf,
        leases: FeedLeases,
        work: CancellationToken,
    ) -> Service {
        Service {
            config_seen: fingerprint(&config_path),
            ctx,
            config_path,
            leases,
            work,
            polls: JoinSet::new(),
            in_flight: HashMap::new(),
            api_token: None,
            cycle: None,
            retention_due: Instant::now(),
        }
    }

    /// Starts the polls that are due (and the retention rules, when due); how long to sleep
    /// before looking again.
    async fn start_due_work(&mut self) -> Duration {
        let wake_in = start_due_polls(
            &self.ctx,
            &self.leases,
            &self.work,
            &mut self.polls,
            &mut self.in_flight,
        )
        .await;
        if !self.polls.is_empty() && self.cycle.is_none() {
            self.cycle = Some((Instant::now(), PollSummary::default()));
        }
        if Instant::now() >= self.retention_due {
            self.retention_due = Instant::now() + RETENTION_INTERVAL;
            apply_retention(&self.ctx).await;
        }
        wake_in
    }

    /// A poll ended: its lease goes back, its outcome is said, and the cycle's line once the
    /// service is idle.
    async fn poll_finished(
        &mut self,
        done: Result<(tokio::task::Id, FeedReport), tokio::task::JoinError>,
    ) {
        if let Some(report) = finish_poll(done, &mut self.in_flight, &self.leases).await {
            say_feed_outcome(&self.ctx, &report).await;
            if let Some((_, summary)) = self.cycle.as_mut() {
                summary.add(&report);
            }
        }
        if self.polls.is_empty()
            && let Some((started, mut summary)) = self.cycle.take()
        {
            summary.elapsed = started.elapsed();
            say_cycle(&self.ctx, &summary).await;
        }
    }

    /// SIGHUP: the file is read again.
    async fn reload(&mut self, targets: &watch::Sender<Targets>) {
        self.config_seen = fingerprint(&self.config_path);
        reload_config(
            &mut self.ctx,
            &self.config_path,
            targets,
            self.api_token.as_ref(),
        )
        .await;
    }

    /// The file is read again when its content changed.
    async fn reload_if_changed(&mut self, targets: &watch::Sender<Targets>) {
        let current = fingerprint(&self.config_path);
        if current.is_some() && current != self.config_seen {
            self.config_seen = current;
            tracing::info!(config = %self.config_path.display(), "configuration file changed");
            let api_token = self.api_token.as_ref();
            reload_config(&mut self.ctx, &self.config_path, targets, api_token).await;
        }
    }

    /// Stops taking work and lets the polls in flight finish for `grace`, then abandons the
    /// rest.
    async fn finish_in_flight(&mut self, grace: Duration) {
        self.work.cancel();
        tracing::info!(
            in_flight = self.polls.len(),
            grace_seconds = grace.as_secs(),
            "stopping: finishing in-flight polls"
        );
        let (polls, in_flight, leases) = (&mut self.polls, &mut self.in_flight, &self.leases);
        let drained = tokio::time::timeout(grace, async {
            while let Some(done) = polls.join_next_with_id().await {
                finish_poll(done, in_flight, leases).await;
            }
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                abandoned = self.polls.len(),
                "grace period over: abandoning in-flight polls"
            );
            self.polls.shutdown().await;
        }
    }
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
        // A failed take is logged by the leases at a bounded rate and retried after a
        // doubling wait.
        if let Ok(due) = leases.take(free, false).await {
            for feed in due {
                let feed_id = feed.id;
                let task = spawn_poll(polls, ctx, feed, work);
                in_flight.insert(task, feed_id);
            }
        }
    }
    let wake_in = match ctx.store.next_due().await {
        Ok(Some(at)) => (at - now())
            .to_std()
            .unwrap_or(Duration::ZERO)
            .clamp(Duration::from_millis(200), MAX_SLEEP),
        Ok(None) => MAX_SLEEP,
        Err(_) => Duration::from_secs(5),
    };
    // While takes fail, the loop waits for the next attempt rather than for the due feed.
    wake_in.max(leases.retry_in().unwrap_or_default())
}

/// How often the `[retention]` rules are applied while the service runs.
const RETENTION_INTERVAL: Duration = Duration::from_secs(3600);

/// A settled feed entry that its feed stopped listing is forgotten this long after it was
/// last listed: long enough for a feed that drops an item and lists it again (a republished
/// post, a feed that pages), short enough that the table follows the feeds, not their history.
const FORGET_UNLISTED_ENTRIES_AFTER: chrono::Duration = chrono::Duration::days(30);

/// A webhook removed from the configuration keeps its pending deliveries this long, in case
/// it is configured again (an edit that comments it out for a while).
const FORGET_REMOVED_WEBHOOKS_AFTER: chrono::Duration = chrono::Duration::days(30);

/// Applies `[retention]`: articles (or only their raw pages) older than the configured age
/// are removed. Settled entries their feeds no longer list, and webhooks removed a month ago,
/// are forgotten in any case. A
/// failure is logged and tried again at the next interval.
async fn apply_retention(ctx: &Context) {
    match ctx
        .store
        .forget_entries(now() - FORGET_UNLISTED_ENTRIES_AFTER)
        .await
    {
        Ok(0) => {}
        Ok(forgotten) => {
            tracing::info!(forgotten, "forgot feed entries their feeds no longer list")
        }
        Err(error) => tracing::warn!(%error, "cannot forget old feed entries; trying again later"),
    }
    match ctx
        .store
        .forget_removed_webhooks(now() - FORGET_REMOVED_WEBHOOKS_AFTER)
        .await
    {
        Ok(0) => {}
        Ok(forgotten) => tracing::info!(
            forgotten,
            "forgot webhooks removed from the configuration a month ago, with their deliveries"
        ),
        Err(error) => tracing::warn!(%error, "cannot forget removed webhooks; trying again later"),
    }
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
    let idle = summary.new_articles == 0
        && summary.failed_articles == 0
        && summary.errors == 0
        && summary.blocked == 0;
    if idle {
        // Nothing new: routine, and it would be a line per poll of an idle service.
        tracing::debug!("polled {}; {next}", summary.summary_line());
    } else {
        tracing::info!("polled {}; {next}", summary.summary_line());
    }
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
/// switch to it through `targets`, the API to its token through `api_token`), an invalid one
/// is logged and ignored, and so is one without feeds where there were feeds, unless it says
/// `feeds = []`.
async fn reload_config(
    ctx: &mut Context,
    path: &Path,
    targets: &watch::Sender<Targets>,
    api_token: Option<&ApiToken>,
) {
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
    config.api = api_settings(&config, &ctx.config, api_token);
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

/// The `[api]` settings after a reload: the running ones, with the new file's token when the
/// API runs (it takes it from the next request on, ending the sessions of the old one); the
/// other settings take effect on restart.
fn api_settings(
    loaded: &Config,
    running: &Config,
    api_token: Option<&ApiToken>,
) -> Option<crate::config::ApiConfig> {
    let mut settings = running.api.clone();
    let new_token = loaded.api.as_ref().and_then(|api| api.token.clone());
    if let (Some(settings), Some(api_token)) = (settings.as_mut(), api_token)
        && settings.token != new_token
    {
        api_token.replace(new_token.as_deref());
        settings.token = new_token;
        tracing::info!("[api] token changed: the old token and its web view sessions end now");
    }
    let mut wanted = loaded.api.clone();
    if let (Some(wanted), Some(settings)) = (wanted.as_mut(), settings.as_ref()) {
        wanted.token.clone_from(&settings.token);
    }
    if wanted != settings {
        tracing::warn!("[api] changes take effect on restart; the API keeps its current settings");
    }
    settings
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
