//! `gleaner run` and `gleaner poll --once`.

use indicatif::ProgressStyle;
use tokio_util::sync::CancellationToken;
use tracing_indicatif::span_ext::IndicatifSpanExt as _;
use tracing_indicatif::suspend_tracing_indicatif;

use super::{CliError, Context};
use crate::config::Config;
use crate::daemon::{self, PollSummary};
use crate::pipeline::FeedReport;
use crate::webhooks::{self, Targets};

/// The daemon, until SIGTERM or SIGINT.
pub async fn run(config: Config) -> Result<(), CliError> {
    let path = config.path.clone();
    daemon::run_until_signalled(path, config)
        .await
        .context("running the service")
}

/// One cycle: a line per feed on standard output (a JSON object with `json`), a progress bar on
/// a terminal, the totals. A feed that could not be polled makes the command fail (exit 1)
/// once every feed is done, so that scripts and timers notice; so does a cycle stopped by
/// SIGTERM or SIGINT, after it gave its feeds back for the next run to take at once. Feeds
/// that another process holds are listed (`status=leased`) and counted (`leased=N`).
pub async fn poll_once(config: Config, all: bool, json: bool) -> Result<(), CliError> {
    let ctx = daemon::prepare(config).await.context("starting")?;
    let cancel = CancellationToken::new();
    let interrupted = stop_on_signals(cancel.clone())?;
    // The bar is drawn only when standard error is a terminal (see `telemetry`); it ticks on
    // its own, log lines pass above it, and it is gone before the totals line.
    let progress = tracing::info_span!("poll", indicatif.pb_show = tracing::field::Empty);
    progress.pb_set_style(
        &ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} feeds {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    progress.pb_start();
    let mut stored = 0usize;
    let (mut failed_articles, mut failed_images, mut failed_feeds) = (0usize, 0usize, 0usize);
    let summary = daemon::poll_once(
        &ctx,
        all,
        &cancel,
        |feeds| progress.pb_set_length(feeds as u64),
        |report| {
            let line = if json {
                feed_json(report).to_string()
            } else {
                // A name or an error message from outside, printed inert.
                super::table::one_line(&report.summary_line()).into_owned()
            };
            suspend_tracing_indicatif(|| println!("{line}"));
            stored += report.new_articles;
            failed_articles += report.failed_articles;
            failed_images += report.failed_images;
            failed_feeds += usize::from(report.error.is_some());
            progress.pb_inc(1);
            // An image that failed leaves its article stored: named apart, not an article lost.
            progress.pb_set_message(&format!(
                "· {stored} articles stored · {failed_articles} articles failed · \
                 {failed_images} images failed · {failed_feeds} feeds failed · {}",
                super::table::one_line(&report.feed)
            ));
        },
    )
    .await
    .context("polling")?;
    drop(progress);
    interrupted.abort();
    deliver_before_exit(&ctx).await;
    if summary.feeds == 0 && !summary.interrupted {
        say_when_next_due(&ctx.store).await;
    }
    ctx.store.close().await;
    if json {
        println!("{}", summary_json(&summary));
    } else {
        println!("{}", summary.summary_line());
    }
    if summary.leased > 0 {
        tracing::warn!(
            leased = summary.leased,
            "feeds left alone: another process is polling them (see the status=leased lines)"
        );
    }
    if summary.interrupted {
        return Err(CliError::Runtime {
            context: "polling".to_string(),
            source: "interrupted before every feed was polled; the next poll takes the rest".into(),
        });
    }
    if summary.errors > 0 {
        return Err(CliError::Runtime {
            context: "polling".to_string(),
            source: format!("{} of {} feeds failed", summary.errors, summary.feeds).into(),
        });
    }
    Ok(())
}

/// A poll that found no feed due says when the first one is (on standard error: the summary
/// line on standard output stays as scripts read it).
async fn say_when_next_due(store: &crate::store::Store) {
    match daemon::first_due(store).await {
        Ok(Some(at)) => tracing::info!(
            "no feed was due; {} (`poll --all` polls every feed now)",
            daemon::next_poll_phrase(at)
        ),
        Ok(None) => tracing::info!("no feed was due, and no active feed has a next poll time"),
        Err(error) => tracing::warn!(%error, "no feed was due; cannot read when the next is"),
    }
}

/// Fires `cancel` on the first SIGTERM or SIGINT: the cycle stops taking work, lets the polls
/// in flight finish for the grace period, and gives its feeds back.
fn stop_on_signals(cancel: CancellationToken) -> Result<tokio::task::JoinHandle<()>, CliError> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).context("installing signal handlers")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("installing signal handlers")?;
    Ok(tokio::spawn(async move {
        let name = tokio::select! {
            _ = terminate.recv() => "SIGTERM",
            _ = interrupt.recv() => "SIGINT",
        };
        tracing::info!("{name}: finishing the feeds in flight, then giving the rest back");
        cancel.cancel();
    }))
}

/// How long `poll --once` waits for its webhook deliveries before it exits.
const DELIVERY_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Sends the webhook deliveries this cycle queued (and any older ones due), for at most
/// [`DELIVERY_WAIT`]; says how many are left for the next run.
async fn deliver_before_exit(ctx: &crate::pipeline::Context) {
    let targets = Targets::new(&ctx.config.webhooks, &ctx.fetcher);
    match webhooks::deliver_pending(&ctx.store, &targets, DELIVERY_WAIT).await {
        Ok(0) => {}
        Ok(pending) => tracing::warn!(
            pending,
            "webhook deliveries still pending: the next `gleaner run` or `poll` sends them"
        ),
        Err(error) => tracing::warn!(%error, "webhook deliveries not sent; they stay queued"),
    }
}

/// One feed's line of `poll --once --json`: the fields of its summary line, plus its error.
fn feed_json(report: &FeedReport) -> serde_json::Value {
    serde_json::json!({
        "feed": report.feed,
        "status": report.status.to_string(),
        "new_articles": report.new_articles,
        "known_articles": report.known_articles,
        "failed_articles": report.failed_articles,
        "failed_images": report.failed_images,
        "blocked": report.blocked,
        "error": report.error,
        "holder": report.held_by.as_ref().map(|held| held.holder.as_str()),
        "lease_until": report.held_by.as_ref().map(|held| held.until),
        "elapsed_ms": u64::try_from(report.elapsed.as_millis()).unwrap_or(u64::MAX),
    })
}

/// The totals line of `poll --once --json`: the fields of the summary line.
fn summary_json(summary: &PollSummary) -> serde_json::Value {
    serde_json::json!({
        "total": true,
        "feeds": summary.feeds,
        "new_articles": summary.new_articles,
        "failed_articles": summary.failed_articles,
        "failed_images": summary.failed_images,
        "errors": summary.errors,
        "blocked": summary.blocked,
        "leased": summary.leased,
        "interrupted": summary.interrupted,
        "elapsed_ms": u64::try_from(summary.elapsed.as_millis()).unwrap_or(u64::MAX),
    })
}
