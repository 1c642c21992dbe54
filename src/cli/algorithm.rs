//! `--algorithm NAME`: an extraction algorithm named on the command line.
//!
//! The accepted names, and the list that `--help` shows, come from [`Algorithm::ALL`] itself,
//! so a new algorithm appears in every command's help the day it is added.

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;

use crate::extract::{Algorithm, UnknownAlgorithm};

/// Reads a name as [`Algorithm`]'s `FromStr` does (any case, spaces trimmed) and lists
/// [`Algorithm::ALL`] as the possible values.
#[derive(Debug, Clone, Copy)]
pub struct AlgorithmParser;

impl TypedValueParser for AlgorithmParser {
    type Value = Algorithm;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Algorithm, clap::Error> {
        let Some(text) = value.to_str() else {
            return Err(clap::Error::new(ErrorKind::InvalidUtf8).with_cmd(cmd));
        };
        text.parse().map_err(|unknown: UnknownAlgorithm| {
            clap::Error::raw(ErrorKind::InvalidValue, format!("{unknown}\n")).with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            Algorithm::ALL
                .into_iter()
                .map(|algorithm| PossibleValue::new(algorithm.name())),
        ))
    }
}
