//! `gleaner init`: writes a commented `config.toml` to start from, never over an existing file.

use std::io::Write as _;
use std::path::Path;

use super::{CliError, Context};

/// The repository's `config.toml`: every section with its defaults and a comment each.
const TEMPLATE: &str = include_str!("../../config.toml");

/// Writes [`TEMPLATE`] to `path`, refusing (exit 2) when a file is already there.
pub fn run(path: &Path) -> Result<(), CliError> {
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path);
    let mut file = match created {
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(CliError::Usage(format!(
                "{} already exists; nothing written (edit it, or remove it first)",
                path.display()
            )));
        }
        other => other.with_context(|| format!("creating {}", path.display()))?,
    };
    file.write_all(TEMPLATE.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    println!(
        "wrote {}: edit its [[feeds]], then `gleaner check-config` and `gleaner run`",
        path.display()
    );
    Ok(())
}
