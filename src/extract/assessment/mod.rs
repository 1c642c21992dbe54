//! What an extraction is worth: the [`verdict`] (whether the page is an article, and why
//! not) and the [`quality`] estimate (the expected F1 of an extraction, from its features).

pub mod quality;
pub mod verdict;
