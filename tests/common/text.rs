//! Assertions on extracted text: what must and must not appear, with the whole text shown
//! when it fails. Included by path (`#[path = "common/text.rs"]`) so that the extraction
//! tests need none of the database helpers.

#![allow(dead_code)]

/// Every needle occurs in `text`.
pub fn assert_contains_all(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}

/// No needle occurs in `text`.
pub fn assert_contains_none(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(!text.contains(needle), "unexpected {needle:?} in:\n{text}");
    }
}
