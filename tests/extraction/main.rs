//! Extraction and what a poll decides from it, one test binary: the extractors on fixtures and
//! properties, page types and verdicts, site rules and templates, the sanitizer, near
//! duplicates, the fuzzers' regressions, the evaluation set and metric, and Markdown output.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "../api_support/mod.rs"]
mod api_support;
#[path = "../common/text.rs"]
mod text;

mod eval_dataset;
mod eval_duplicates;
mod eval_metric;
mod extract_bounds;
mod extract_fixtures;
mod extract_structures;
mod extract_verdict;
mod fuzz_regressions;
mod html_depth;
mod markdown_front_matter;
mod markdown_xss;
mod near_duplicates;
mod page_type_extraction;
mod page_types;
mod page_verdicts;
mod site_rules;
mod site_templates;
mod tidy_media;

/// Tests that take many seconds (the F1 floors minutes, in a debug build): `cargo test -- --skip
/// slow::` leaves them out.
mod slow {
    mod eval_floors;
    mod extract_properties;
}
