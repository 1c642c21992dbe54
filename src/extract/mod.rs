//! Article extraction: one [`Extractor`] trait, one registry of algorithms by name.
//!
//! Every algorithm that `gleaner extract --algorithm` accepts is a variant of [`Algorithm`];
//! the names are the public contract of `../specs/cli.md` and of `[extract].algorithm`.

use std::fmt;
use std::str::FromStr;

/// An extraction algorithm, selectable by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// The production cascade: CUTER, then CETR when CUTER fails or is not confident.
    Auto,
    /// CUTER (seed 000) with the feed title as a positional hint.
    Cuter,
    /// CETR with 2-D clustering (seed 003).
    Cetr,
    /// CETR with a threshold (seed 003 §4).
    CetrTm,
    /// CETR with 1-D k-means (seed 003 §4).
    CetrKm,
    /// DANA (seed 001).
    Dana,
    /// BTE (seed 004).
    Bte,
    /// CoreEx (seed 002 §III.b).
    Coreex,
    /// ECON (seed 002 §III.c).
    Econ,
    /// All text of the page: the floor every algorithm must beat.
    Alltext,
}

impl Algorithm {
    /// Every algorithm, in the order `eval --algorithm all` reports them.
    pub const ALL: [Algorithm; 10] = [
        Algorithm::Auto,
        Algorithm::Cuter,
        Algorithm::Cetr,
        Algorithm::CetrTm,
        Algorithm::CetrKm,
        Algorithm::Dana,
        Algorithm::Bte,
        Algorithm::Coreex,
        Algorithm::Econ,
        Algorithm::Alltext,
    ];

    /// The name used on the command line and in `config.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Cuter => "cuter",
            Algorithm::Cetr => "cetr",
            Algorithm::CetrTm => "cetr-tm",
            Algorithm::CetrKm => "cetr-km",
            Algorithm::Dana => "dana",
            Algorithm::Bte => "bte",
            Algorithm::Coreex => "coreex",
            Algorithm::Econ => "econ",
            Algorithm::Alltext => "alltext",
        }
    }

    /// The comma-separated list of accepted names, for error messages.
    pub fn names() -> String {
        Self::ALL
            .iter()
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Algorithm::ALL`].
#[derive(Debug, thiserror::Error)]
#[error("unknown extraction algorithm `{name}` (known: {known})")]
pub struct UnknownAlgorithm {
    pub name: String,
    pub known: String,
}

impl FromStr for Algorithm {
    type Err = UnknownAlgorithm;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|a| a.name() == wanted)
            .ok_or_else(|| UnknownAlgorithm {
                name: s.to_string(),
                known: Self::names(),
            })
    }
}
