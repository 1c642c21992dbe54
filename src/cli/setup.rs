//! `gleaner migrate` and `gleaner check-config`.

use super::{CliError, Context, table};
use crate::config::{Config, FeedConfig};
use crate::filter::Filters;
use crate::store::Store;

/// Creates or upgrades the schema and says which migrations are applied.
pub async fn migrate(config: &Config) -> Result<(), CliError> {
    let store = Store::connect(&config.database.target)
        .await
        .context("migrating the database")?;
    let applied = store
        .applied_migrations()
        .await
        .context("reading the schema version")?;
    tracing::info!(database = %store.target(), migrations = applied.len(), "schema is up to date");
    println!(
        "{}: schema up to date ({} migration{}: {})",
        store.target(),
        applied.len(),
        if applied.len() == 1 { "" } else { "s" },
        applied.join(", ")
    );
    store.close().await;
    Ok(())
}

/// Prints what the configuration means; loading it has already validated it.
pub fn check_config(config: &Config) -> Result<(), CliError> {
    println!("configuration: {} is valid", config.path.display());
    println!("database: {}", config.database.target.display_redacted());
    println!(
        "schedule: default `{}`, jitter {} s; extraction: {}; images: {}",
        config.schedule.default,
        config.schedule.jitter_seconds,
        config.extract.algorithm,
        if config.images.download {
            "downloaded"
        } else {
            "metadata only"
        }
    );
    match &config.api {
        Some(api) => println!(
            "api: http://{} ({})",
            api.listen,
            if api.token.is_some() {
                "bearer token required"
            } else {
                "no token"
            }
        ),
        None => println!("api: off (no [api] table)"),
    }
    println!("feeds: {}", config.feeds.len());
    if !config.feeds.is_empty() {
        let rows: Vec<Vec<String>> = config
            .feeds
            .iter()
            .map(|feed| {
                vec![
                    feed.name.clone(),
                    feed.url.to_string(),
                    feed.schedule.to_string(),
                ]
            })
            .collect();
        print!("{}", table::render(&["NAME", "URL", "SCHEDULE"], &rows, 80));
    }
    if !config.filters.filters.is_empty() {
        println!("filters: {}", describe_filters(&config.filters.filters));
    }
    for feed in &config.feeds {
        let controls = describe_controls(feed, &config.filters.filters);
        if !controls.is_empty() {
            println!("feed {}: {controls}", feed.name);
        }
    }
    print_webhooks(config);
    if !config.outputs.is_empty() {
        let names: Vec<&str> = config.outputs.iter().map(|o| o.name.as_str()).collect();
        println!(
            "outputs: {} ({}; keys ***, `gleaner outputs` shows their URLs)",
            names.len(),
            names.join(", ")
        );
    }
    Ok(())
}

/// A feed's own settings in one line (empty when it has none); secrets show as `***`.
fn describe_controls(feed: &FeedConfig, global: &Filters) -> String {
    let mut parts = Vec::new();
    if !feed.enabled {
        parts.push("disabled".to_string());
    }
    if let Some(algorithm) = feed.algorithm {
        parts.push(format!("algorithm {algorithm}"));
    }
    if let Some(images) = feed.images {
        parts.push(format!("images {}", if images { "on" } else { "off" }));
    }
    if !feed.request.is_empty() {
        parts.push(feed.request.describe());
    }
    if &feed.filters != global {
        parts.push(format!("filters {}", describe_filters(&feed.filters)));
    }
    parts.join("; ")
}

fn describe_filters(filters: &Filters) -> String {
    let list = |rules: &[crate::filter::Rule]| {
        rules
            .iter()
            .map(|rule| format!("`{rule}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "keep [{}], block [{}]",
        list(&filters.keep),
        list(&filters.block)
    )
}

/// The `[[webhooks]]` entries: URL (without credentials or query), feeds, whether signed.
/// The secret itself is never shown.
fn print_webhooks(config: &Config) {
    if config.webhooks.is_empty() {
        return;
    }
    println!("webhooks: {}", config.webhooks.len());
    let rows: Vec<Vec<String>> = config
        .webhooks
        .iter()
        .map(|webhook| {
            vec![
                webhook.display_url(),
                webhook
                    .feeds
                    .as_ref()
                    .map_or_else(|| "all".to_string(), |feeds| feeds.join(", ")),
                if webhook.secret.is_some() {
                    "signed (secret ***)".to_string()
                } else {
                    "unsigned".to_string()
                },
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(&["WEBHOOK", "FEEDS", "SIGNATURE"], &rows, 80)
    );
}
