//! Evaluation: the benchmark metric ([`metric`]), the dataset runner ([`dataset`]), the
//! near-duplicate evaluation ([`duplicates`]) and the page-type detector's ([`page_types`])
//! behind `gleaner eval`.

pub mod dataset;
pub mod duplicates;
pub mod metric;
pub mod page_types;
