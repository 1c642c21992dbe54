//! Evaluation: the benchmark metric ([`metric`]) and the dataset runner ([`dataset`]) behind
//! `gleaner eval` (`../specs/cli.md`, "Evaluation").

pub mod dataset;
pub mod metric;
