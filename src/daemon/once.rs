//! `gleaner poll --once`: one pass over the due feeds (or all) that no other process holds,
//! reporting those it leaves to others, giving every lease back when it ends or is stopped.

use std::time::{Duration, Instant};

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use tracing::Instrument;

use super::leases::FeedLeases;
use crate::pipeline::{Context, FeedReport, poll_feed};
use crate::store::{FeedRecord, PollStatus, StoreError, now};

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

/// Starts one feed's poll as a task of its own, in a span naming the feed.
pub(super) fn spawn_poll(
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
