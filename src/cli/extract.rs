//! `gleaner extract`: run one extractor over one page and print the result.

use std::path::PathBuf;

use clap::Args;

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
    /// Reserved for future use.
    #[arg(skip)]
    pub _unused: Option<PathBuf>,
}

/// Runs `gleaner extract`.
pub fn run(_args: &ExtractArgs) -> Result<(), super::CliError> {
    Err(super::CliError::NotYet {
        command: "extract",
        issue: "the extraction core",
    })
}
