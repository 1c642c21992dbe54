//! The formats an article's body is given out in: `gleaner extract`, `gleaner articles show`
//! and `GET /articles/{id}?format=` offer the same four, named once here and turned into text
//! only at the edge (a flag's value, a query parameter).

use std::fmt;
use std::str::FromStr;

/// An article body's output format: its text, its sanitized HTML, everything as JSON, or the
/// HTML as inert Markdown ([`crate::markdown`]).
///
/// The variants' order is the order `--help` lists them in; they carry no doc comments, which
/// clap would turn into a longer `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BodyFormat {
    Text,
    Html,
    Json,
    Markdown,
}

impl BodyFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            BodyFormat::Text => "text",
            BodyFormat::Html => "html",
            BodyFormat::Json => "json",
            BodyFormat::Markdown => "markdown",
        }
    }
}

impl fmt::Display for BodyFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name that is none of [`BodyFormat`]'s.
#[derive(Debug, thiserror::Error)]
#[error("format must be json, text, html or markdown, not {0:?}")]
pub struct UnknownFormat(pub String);

impl FromStr for BodyFormat {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<BodyFormat, UnknownFormat> {
        match name {
            "text" => Ok(BodyFormat::Text),
            "html" => Ok(BodyFormat::Html),
            "json" => Ok(BodyFormat::Json),
            "markdown" => Ok(BodyFormat::Markdown),
            _ => Err(UnknownFormat(name.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BodyFormat;
    use clap::ValueEnum as _;

    #[test]
    fn every_format_reads_back_from_its_name() {
        for format in BodyFormat::value_variants() {
            assert_eq!(format.as_str().parse::<BodyFormat>().ok(), Some(*format));
            let flag = format
                .to_possible_value()
                .map(|value| value.get_name().to_string());
            assert_eq!(flag.as_deref(), Some(format.as_str()));
        }
        assert!("HTML".parse::<BodyFormat>().is_err());
    }
}
