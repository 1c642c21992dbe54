//! The quality estimate: the expected F1 of an extraction against a human's article text, in
//! [0, 1], comparable across pages and algorithms (`../specs/cli.md`, "Extraction").

use super::{Extraction, Page};

/// The expected F1 of `extraction` on `page`.
pub fn estimate(_page: &Page, extraction: &Extraction) -> f64 {
    extraction.confidence.clamp(0.0, 1.0)
}
