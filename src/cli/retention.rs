//! `prune` (articles or raw pages older than an age) and `feeds remove --purge` (a feed with
//! everything stored for it). The service applies the same pruning from `[retention]`.

use super::{CliError, Context, PruneArgs, feeds_edit, print_json};
use crate::config::Config;
use crate::store::{PrunePreview, Pruned, Store};

/// `prune --older-than AGE [--raw-only] [--dry-run]`: AGE read as `--since` is (an age, a
/// date or a time). `--dry-run` runs the same transaction and rolls it back.
pub async fn prune(config: &Config, args: &PruneArgs) -> Result<(), CliError> {
    let cutoff = super::time::parse_when("--older-than", &args.older_than)?;
    let store = Store::connect(&config.database.target)
        .await
        .context("opening the database")?;
    let preview = if args.dry_run {
        store.prune_preview(cutoff, args.raw_only).await
    } else {
        store
            .prune(cutoff, args.raw_only)
            .await
            .map(|pruned| PrunePreview {
                pruned,
                ids: Vec::new(),
            })
    };
    store.close().await;
    let preview = preview.context("pruning")?;
    if args.output.is_json() {
        return if args.dry_run {
            print_json(&preview)
        } else {
            print_json(&preview.pruned)
        };
    }
    let before = cutoff.format("%Y-%m-%d %H:%M UTC");
    let pruned = preview.pruned;
    match (args.raw_only, args.dry_run) {
        (true, false) => println!(
            "dropped the raw pages of {} articles fetched before {before}",
            pruned.raw_pages
        ),
        (true, true) => println!(
            "would drop the raw pages of {} articles fetched before {before} (dry run: nothing changed)",
            pruned.raw_pages
        ),
        (false, false) => println!(
            "deleted {} articles fetched before {before} ({} image files no longer used)",
            pruned.articles, pruned.image_blobs
        ),
        (false, true) => println!(
            "would delete {} articles fetched before {before} ({} image files no longer used) \
             (dry run: nothing changed)",
            pruned.articles, pruned.image_blobs
        ),
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
