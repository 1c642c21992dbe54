//! `gleaner eval`: score extractors on a labelled dataset.

use std::path::PathBuf;

use clap::Args;

/// Arguments of `gleaner eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// A directory with `ground-truth.json` and `html/{id}.html[.gz]`.
    pub dataset_dir: PathBuf,
    /// One algorithm name, or `all`.
    #[arg(long, default_value = "auto")]
    pub algorithm: String,
    /// Print a JSON array, one object per algorithm.
    #[arg(long)]
    pub json: bool,
    /// Write one prediction per page as `{id}.txt` into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs `gleaner eval`.
pub fn run(_args: &EvalArgs) -> Result<(), super::CliError> {
    Err(super::CliError::NotYet {
        command: "eval",
        issue: "the extraction core",
    })
}
