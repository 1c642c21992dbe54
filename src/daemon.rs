//! The long-lived service and the one-shot cycle.
//!
//! Owns the scheduling loop of `gleaner run`: it starts a poll for every active feed whose
//! `next_due_at` has come (at most `[fetch].concurrency` feeds at once, each feed never twice
//! at a time), sleeps until the next one is due, reloads `config.toml` when the file changes
//! or on SIGHUP (new feeds start, removed feeds stop, their articles stay; an invalid file is
//! logged and the running configuration kept), and on SIGTERM/SIGINT stops taking work, lets
//! in-flight polls finish for `shutdown_grace_seconds`, then abandons the rest. Abandoning is
//! safe: an article is written in one transaction, and a dropped transaction rolls back.
//! Shutdown is an explicit [`CancellationToken`] passed down, never a global.
//!
//! [`poll_once`] is `gleaner poll --once`: one pass over the due feeds (or all), then return.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::config::Config;
use crate::fetch::{FetchError, Fetcher};
use crate::pipeline::{Context, FeedReport, poll_feed};
use crate::store::{FeedRecord, Store, StoreError, now};

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
}

/// Connects the store (creating or upgrading the schema), makes the feeds table match the
/// configuration, and builds the HTTP client.
pub async fn prepare(config: Config) -> Result<Context, DaemonError> {
    let store = Store::connect(&config.database.target).await?;
    store.sync_feeds(&config.feeds).await?;
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
    /// Feeds that could not be polled.
    pub errors: usize,
    pub elapsed: Duration,
}

impl PollSummary {
    pub fn add(&mut self, report: &FeedReport) {
        self.feeds += 1;
        self.new_articles += report.new_articles;
        self.failed_articles += report.failed_articles;
        self.errors += usize::from(report.error.is_some());
    }

    /// `feeds=N new_articles=N failed_articles=N errors=N elapsed_ms=N`
    pub fn summary_line(&self) -> String {
        format!(
            "feeds={} new_articles={} failed_articles={} errors={} elapsed_ms={}",
            self.feeds,
            self.new_articles,
            self.failed_articles,
            self.errors,
            self.elapsed.as_millis()
        )
    }
}

/// One pass over the feeds that are due (every active feed with `all`), at most
/// `[fetch].concurrency` at a time; `on_report` sees each feed as it finishes.
pub async fn poll_once(
    ctx: &Context,
    all: bool,
    cancel: &CancellationToken,
    mut on_start: impl FnMut(usize),
    mut on_report: impl FnMut(&FeedReport),
) -> Result<PollSummary, StoreError> {
    let started = Instant::now();
    let feeds: Vec<FeedRecord> = if all {
        ctx.store
            .feeds()
            .await?
            .into_iter()
            .filter(|f| f.active)
            .collect()
    } else {
        ctx.store.due_feeds(now(), i64::MAX).await?
    };
    on_start(feeds.len());
    let mut summary = PollSummary::default();
    let mut reports = futures::stream::iter(feeds)
        .take_while(|_| futures::future::ready(!cancel.is_cancelled()))
        .map(|feed| async move { poll_feed(ctx, &feed, cancel).await })
        .buffer_unordered(ctx.config.fetch.concurrency);
    while let Some(report) = reports.next().await {
        summary.add(&report);
        on_report(&report);
    }
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
    let work = shutdown.child_token();
    let mut polls: JoinSet<FeedReport> = JoinSet::new();
    let mut in_flight: HashMap<tokio::task::Id, String> = HashMap::new();
    let mut config_seen = fingerprint(&config_path);
    let mut config_check = tokio::time::interval(CONFIG_CHECK_INTERVAL);
    config_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);

    loop {
        let wake_in = start_due_polls(&ctx, &work, &mut polls, &mut in_flight).await;
        tokio::select! {
            _ = shutdown.cancelled() => break,
            Some(()) = reload.recv() => {
                config_seen = fingerprint(&config_path);
                reload_config(&mut ctx, &config_path).await;
            }
            _ = config_check.tick() => {
                let current = fingerprint(&config_path);
                if current.is_some() && current != config_seen {
                    config_seen = current;
                    tracing::info!(config = %config_path.display(), "configuration file changed");
                    reload_config(&mut ctx, &config_path).await;
                }
            }
            Some(done) = polls.join_next_with_id(), if !polls.is_empty() => {
                finish_poll(done, &mut in_flight);
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
            finish_poll(done, &mut in_flight);
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

/// Starts a poll for each due feed not already running, within the concurrency limit, and
/// says how long to sleep before looking again.
async fn start_due_polls(
    ctx: &Context,
    work: &CancellationToken,
    polls: &mut JoinSet<FeedReport>,
    in_flight: &mut HashMap<tokio::task::Id, String>,
) -> Duration {
    let free = ctx.config.fetch.concurrency.saturating_sub(polls.len());
    if free > 0 && !work.is_cancelled() {
        let running: HashSet<&String> = in_flight.values().collect();
        // Ask for more than the free slots: some due feeds may be running already.
        let limit = i64::try_from(free + running.len()).unwrap_or(i64::MAX);
        match ctx.store.due_feeds(now(), limit).await {
            Ok(due) => {
                let mut started = Vec::new();
                for feed in due
                    .into_iter()
                    .filter(|f| !running.contains(&f.name))
                    .take(free)
                {
                    let (ctx, work) = (ctx.clone(), work.clone());
                    let span = tracing::info_span!("poll", feed = %feed.name);
                    let name = feed.name.clone();
                    let handle = polls
                        .spawn(async move { poll_feed(&ctx, &feed, &work).await }.instrument(span));
                    started.push((handle.id(), name));
                }
                in_flight.extend(started);
            }
            Err(error) => tracing::error!(%error, "cannot read due feeds; retrying"),
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

fn finish_poll(
    done: Result<(tokio::task::Id, FeedReport), tokio::task::JoinError>,
    in_flight: &mut HashMap<tokio::task::Id, String>,
) {
    match done {
        Ok((id, report)) => {
            in_flight.remove(&id);
            tracing::debug!(summary = %report.summary_line(), "poll finished");
        }
        Err(error) => {
            let feed = in_flight.remove(&error.id()).unwrap_or_default();
            if error.is_panic() {
                tracing::error!(%feed, "a poll panicked; the feed is retried when next due");
            }
        }
    }
}

/// Loads the file again; a valid configuration replaces the running one, an invalid one is
/// logged and ignored.
async fn reload_config(ctx: &mut Context, path: &Path) {
    let mut config = match Config::load(path) {
        Ok(config) => config,
        Err(error) => {
            tracing::error!(%error, "configuration not reloaded: keeping the running one");
            return;
        }
    };
    if config.database.target != ctx.config.database.target {
        tracing::warn!(
            "a new [database] url takes effect on restart; keeping the current database"
        );
        config.database = ctx.config.database.clone();
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
