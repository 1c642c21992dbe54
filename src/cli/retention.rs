//! `prune` (articles or raw pages older than an age) and `feeds remove --purge` (a feed with
//! everything stored for it). The service applies the same pruning from `[retention]`.

use super::{CliError, Context, feeds_edit, print_json};
use crate::config::Config;
use crate::store::{Pruned, Store};

/// `prune --older-than AGE [--raw-only]`: AGE read as `--since` is (an age, a date or a time).
pub async fn prune(
    config: &Config,
    older_than: &str,
    raw_only: bool,
    json: bool,
) -> Result<(), CliError> {
    let cutoff = super::time::parse_when("--older-than", older_than)?;
    let store = Store::connect(&config.database.target)
        .await
        .context("opening the database")?;
    let pruned = store.prune(cutoff, raw_only).await.context("pruning");
    store.close().await;
    let pruned = pruned?;
    if json {
        return print_json(&pruned);
    }
    let before = cutoff.format("%Y-%m-%d %H:%M UTC");
    if raw_only {
        println!(
            "dropped the raw pages of {} articles fetched before {before}",
            pruned.raw_pages
        );
    } else {
        println!(
            "deleted {} articles fetched before {before} ({} image files no longer used)",
            pruned.articles, pruned.image_blobs
        );
    }
    Ok(())
}

/// `feeds remove NAME [--purge]`: the feed leaves the configuration; with `--purge` its
/// articles, entries and failures leave the database too (also for a feed removed from the
/// configuration earlier).
pub fn remove_feed(config: &Config, name: &str, purge: bool) -> Result<(), CliError> {
    let removed = feeds_edit::remove(config, name);
    if !purge {
        return removed;
    }
    let not_configured = match removed {
        Ok(()) => None,
        Err(CliError::Usage(message)) if message.starts_with("no feed is named") => Some(message),
        Err(error) => return Err(error),
    };
    super::block_on(async {
        let store = Store::connect(&config.database.target)
            .await
            .context("opening the database")?;
        let purged = store.purge_feed(name).await.context("purging the feed");
        store.close().await;
        match (purged?, not_configured) {
            (Some(pruned), _) => {
                print_purged(name, &pruned);
                Ok(())
            }
            (None, None) => {
                println!("feed `{name}` had nothing stored");
                Ok(())
            }
            (None, Some(message)) => Err(CliError::Usage(format!(
                "{message}, and none is stored in the database"
            ))),
        }
    })
}

fn print_purged(name: &str, pruned: &Pruned) {
    println!(
        "deleted feed `{name}` from the database: {} articles, {} entries, {} failures, {} image files; \
         {} articles other feeds list kept",
        pruned.articles, pruned.entries, pruned.failures, pruned.image_blobs, pruned.adopted
    );
}
