//! `gleaner sites`: the sites whose page template has been learned (`extract::template`),
//! how many pages each model has seen and what it removed.

use super::{CliError, Context, open_store, print_json, table};
use crate::config::Config;

/// Lists every site with a template model, by name.
pub async fn list(config: &Config, json: bool) -> Result<(), CliError> {
    let store = open_store(config).await?;
    let sites = store
        .site_summaries()
        .await
        .context("reading site templates")?;
    store.close().await;
    if json {
        return print_json(&sites);
    }
    let cells: Vec<Vec<String>> = sites
        .iter()
        .map(|site| {
            vec![
                site.site.clone(),
                site.pages.to_string(),
                site.template_blocks.to_string(),
                site.fingerprints.to_string(),
                site.applied_pages.to_string(),
                site.removed_blocks.to_string(),
                site.removed_bytes.to_string(),
                site.updated_at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
            ]
        })
        .collect();
    let header = [
        "SITE",
        "PAGES",
        "TEMPLATE BLOCKS",
        "FINGERPRINTS",
        "PAGES CLEANED",
        "BLOCKS REMOVED",
        "BYTES REMOVED",
        "UPDATED",
    ];
    print!("{}", table::render(&header, &cells, 60));
    Ok(())
}
