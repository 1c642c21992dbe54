//! `gleaner extract`: run one extractor over one page and print the result
//! (`../specs/cli.md`, "Extraction").

use std::io::{Read, Write};

use super::Context as _;
use clap::Args;

use crate::extract::{Algorithm, ExtractError, extract_page};

/// Arguments of `gleaner extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// A file path, `-` for standard input, or an http(s) URL.
    pub source: String,
    /// The positional hint: what the feed entry's title would be.
    #[arg(long)]
    pub title: Option<String>,
    /// The page's URL, against which relative links and images are resolved.
    #[arg(long)]
    pub url: Option<String>,
    /// The algorithm to run (auto, cuter, cetr, cetr-tm, cetr-km, dana, bte, coreex, econ, alltext).
    #[arg(long, default_value = "auto")]
    pub algorithm: String,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = ["text", "html", "json"])]
    pub format: String,
}

/// Runs `gleaner extract`.
pub fn run(args: &ExtractArgs) -> Result<(), super::CliError> {
    let algorithm: Algorithm = args
        .algorithm
        .parse()
        .map_err(|err: crate::extract::UnknownAlgorithm| super::CliError::Usage(err.to_string()))?;
    let base = args
        .url
        .as_deref()
        .map(|u| {
            url::Url::parse(u).map_err(|err| super::CliError::Usage(format!("--url `{u}`: {err}")))
        })
        .transpose()?;
    let source = args.source.as_str();
    let lower = source.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Err(super::CliError::NotYet {
            command: "extract <URL>",
            issue: "the ingestion stage's fetcher; save the page and pass the file (or `-`) meanwhile",
        });
    }
    let raw = if source == "-" {
        let mut raw = Vec::new();
        std::io::stdin()
            .read_to_end(&mut raw)
            .context("reading standard input")?;
        raw
    } else {
        std::fs::read(source).with_context(|| format!("reading {source}"))?
    };
    let extraction = extract_page(&raw, None, base.as_ref(), args.title.as_deref(), algorithm)
        .map_err(|err| match err {
            ExtractError::NotImplemented(_) => super::CliError::Usage(err.to_string()),
            ExtractError::NoContent(_) => super::CliError::runtime(err),
        })?;
    let output = match args.format.as_str() {
        "html" => extraction.html,
        "json" => {
            serde_json::to_string_pretty(&extraction).context("serializing the extraction")?
        }
        _ => extraction.text,
    };
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{output}") {
        // A closed pipe (`gleaner extract … | head`) is not a failure.
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(super::CliError::Runtime {
                context: "writing the result".to_string(),
                source: Box::new(err),
            });
        }
        _ => {}
    }
    Ok(())
}
