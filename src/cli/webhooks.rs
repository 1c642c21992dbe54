//! `gleaner webhooks redeliver`: the deliveries given up, sent again.

use super::time::parse_since;
use super::{CliError, Context};
use crate::config::Config;
use crate::daemon;
use crate::webhooks::{self, Targets};

/// How long redelivery sends (and waits for retries), as `poll --once` does.
const DELIVERY_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Requeues the given-up deliveries that `webhook` and `since` select, sends them, and prints
/// `requeued=N delivered=N given_up=N pending=N skipped=N`. Exit 1 when some were given up
/// again; a `--webhook` that names no configured webhook is a usage error.
pub async fn redeliver(
    config: Config,
    webhook: Option<&str>,
    since: Option<&str>,
) -> Result<(), CliError> {
    let since = parse_since(since)?;
    let ctx = daemon::prepare(config).await.context("starting")?;
    let targets = Targets::new(&ctx.config.webhooks, &ctx.fetcher);
    if let Some(name) = webhook
        && !webhooks::is_configured(&targets, name)
    {
        ctx.store.close().await;
        return Err(CliError::Usage(format!(
            "--webhook `{name}` names no configured webhook (give its key, as `gleaner failures` \
             shows it, or its URL)"
        )));
    }
    let done = webhooks::redeliver(&ctx.store, &targets, webhook, since, DELIVERY_WAIT).await;
    ctx.store.close().await;
    let done = done.context("redelivering")?;
    println!(
        "requeued={} delivered={} given_up={} pending={} skipped={}",
        done.requeued, done.delivered, done.given_up, done.pending, done.skipped
    );
    if done.given_up > 0 {
        return Err(CliError::Runtime {
            context: "redelivering".to_string(),
            source: format!(
                "{} of {} deliveries given up again (see `gleaner failures --stage webhook`)",
                done.given_up, done.requeued
            )
            .into(),
        });
    }
    Ok(())
}
