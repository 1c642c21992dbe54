//! `gleaner outputs`: the configured `[[outputs]]` with the URLs a feed reader subscribes to
//! (each carries the output's key), and what each carries.

use serde_json::json;

use super::{CliError, print_json, table};
use crate::api::outputs::{OutputFormat, output_path};
use crate::config::{Config, OutputConfig};

/// Lists every output with its Atom and JSON Feed URLs.
pub fn list(config: &Config, json: bool) -> Result<(), CliError> {
    let base = base_url(config);
    let urls = |output: &OutputConfig, format| {
        base.as_ref()
            .map(|base| format!("{base}{}", output_path(output, format)))
    };
    if json {
        let outputs: Vec<serde_json::Value> = config
            .outputs
            .iter()
            .map(|output| {
                json!({
                    "name": output.name,
                    "atom": urls(output, OutputFormat::Atom),
                    "json": urls(output, OutputFormat::JsonFeed),
                    "carries": carries(output),
                })
            })
            .collect();
        return print_json(&outputs);
    }
    if config.outputs.is_empty() {
        println!(
            "no outputs: add an [[outputs]] table to {}",
            config.path.display()
        );
        return Ok(());
    }
    if base.is_none() {
        println!("not served: {} has no [api] table", config.path.display());
    }
    let rows: Vec<Vec<String>> = config
        .outputs
        .iter()
        .flat_map(|output| {
            OutputFormat::ALL.into_iter().map(move |format| {
                vec![
                    output.name.clone(),
                    format.extension().to_string(),
                    urls(output, format).unwrap_or_else(|| output_path(output, format)),
                    carries(output),
                ]
            })
        })
        .collect();
    print!(
        "{}",
        table::render(&["NAME", "FORMAT", "URL", "CARRIES"], &rows, 200)
    );
    Ok(())
}

/// Where readers reach the API: `[api] public_url`, else its listening address.
fn base_url(config: &Config) -> Option<String> {
    let api = config.api.as_ref()?;
    Some(match &api.public_url {
        Some(url) => url.as_str().trim_end_matches('/').to_string(),
        None => format!("http://{}", api.listen),
    })
}

/// What an output carries, in one line: `feeds a, b; tags x; 50 items; summaries by s`.
fn carries(output: &OutputConfig) -> String {
    let mut parts = Vec::new();
    parts.push(match &output.feeds {
        Some(feeds) => format!("feeds {}", feeds.join(", ")),
        None => "every feed".to_string(),
    });
    if let Some(tags) = &output.tags {
        parts.push(format!("tags {}", tags.join(", ")));
    }
    if let Some(types) = &output.page_types {
        let names: Vec<&str> = types.iter().map(|t| t.as_str()).collect();
        parts.push(format!("page types {}", names.join(", ")));
    }
    if output.skip_duplicates {
        parts.push("one per story".to_string());
    }
    if let Some(quality) = output.min_quality {
        parts.push(format!("quality ≥ {quality:.2}"));
    }
    parts.push(format!("{} items", output.items));
    if let Some(summary) = &output.summary {
        parts.push(format!(
            "summaries by {} ({})",
            summary.consumer, summary.field
        ));
    }
    parts.join("; ")
}
