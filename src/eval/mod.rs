//! Evaluation: the benchmark metric ([`metric`]), the dataset runner ([`dataset`]) and the
//! near-duplicate evaluation ([`duplicates`]) behind `gleaner eval`.

pub mod dataset;
pub mod duplicates;
pub mod metric;
