//! Evaluation: the benchmark metric ([`metric`]) and the dataset runner ([`dataset`]) behind
//! `gleaner eval`.

pub mod dataset;
pub mod metric;
