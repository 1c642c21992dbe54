//! `gleaner run` and `gleaner poll --once`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio_util::sync::CancellationToken;

use super::{CliError, Context};
use crate::config::Config;
use crate::daemon;

/// The daemon, until SIGTERM or SIGINT.
pub async fn run(config: Config) -> Result<(), CliError> {
    let path = config.path.clone();
    daemon::run_until_signalled(path, config)
        .await
        .context("running the service")
}

/// One cycle: a line per feed on standard output, a progress bar on a terminal, the totals.
pub async fn poll_once(config: Config, all: bool) -> Result<(), CliError> {
    let ctx = daemon::prepare(config).await.context("starting")?;
    let cancel = CancellationToken::new();
    let interrupted = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                tracing::info!("interrupted: finishing the feeds in flight");
                cancel.cancel();
            }
        })
    };
    let progress = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    progress.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} feeds {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let summary = daemon::poll_once(
        &ctx,
        all,
        &cancel,
        |feeds| progress.set_length(feeds as u64),
        |report| {
            progress.suspend(|| println!("{}", report.summary_line()));
            progress.inc(1);
            progress.set_message(report.feed.clone());
        },
    )
    .await
    .context("polling")?;
    progress.finish_and_clear();
    interrupted.abort();
    ctx.store.close().await;
    println!("{}", summary.summary_line());
    Ok(())
}
